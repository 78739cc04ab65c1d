#include "bench/step_bench.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <nlohmann/json.hpp>
#include <numeric>

#include "util/counter_rng.h"
#include "util/error.h"
#include "util/median.h"

namespace dlm {

namespace {

void validate(const StepBenchOptions& o, const ModelConfig& c) {
    if (o.lengths.empty()) throw Error("step bench: no canvas lengths given");
    if (o.batches.empty()) throw Error("step bench: no batch sizes given");
    if (o.reps < 1) throw Error("step bench: reps must be >= 1, got " + std::to_string(o.reps));
    if (o.warmup < 0) throw Error("step bench: warm-up steps must be >= 0");
    if (o.prompt_len < 0) throw Error("step bench: the prompt length must be >= 0");
    for (int b : o.batches)
        if (b < 1 || b > 1024) throw Error("step bench: batch size " + std::to_string(b) + " is outside 1..1024");
    for (double f : o.fractions)
        if (!(f > 0.0 && f <= 1.0)) throw Error("step bench: row fraction " + std::to_string(f) + " is not in (0, 1]");
    for (int n : o.lengths)
        if (n <= o.prompt_len || n > c.max_seq_len)
            throw Error("step bench: length " + std::to_string(n) + " must exceed the prompt (" +
                        std::to_string(o.prompt_len) + ") and fit the model's context (" + std::to_string(c.max_seq_len) +
                        ")");
}

}  // namespace

StepBenchReport run_step_bench(Backend& backend, const RooflineRates& rates, const std::string& device,
                               const StepBenchOptions& o) {
    const ModelConfig& c = backend.config();
    validate(o, c);
    StepBenchReport report;
    report.backend = backend.name();
    report.device = device;
    report.config = c;
    report.rates = rates;
    report.options = o;
    report.options.progress = nullptr;

    const CounterRng rng(o.seed, rng_stream::kStrategy);
    const int mask = c.mask_token_id >= 0 ? c.mask_token_id : c.vocab_size - 1;
    for (int n : o.lengths) {
        const int gen = n - o.prompt_len;
        for (int batch : o.batches) {
            // Canvases as at the start of a decode: a random prompt, every generated position masked.
            std::vector<std::vector<int32_t>> tokens(static_cast<std::size_t>(batch));
            std::vector<std::unique_ptr<KvCache>> caches;
            for (int b = 0; b < batch; ++b) {
                auto& t = tokens[static_cast<std::size_t>(b)];
                t.assign(static_cast<std::size_t>(n), mask);
                for (int i = 0; i < o.prompt_len; ++i) {
                    int32_t id = static_cast<int32_t>(rng.bits(static_cast<uint64_t>(b), static_cast<uint64_t>(i)) %
                                                      static_cast<uint64_t>(c.vocab_size));
                    t[static_cast<std::size_t>(i)] = id == mask ? (id + 1) % c.vocab_size : id;
                }
                caches.push_back(backend.make_cache(n));
            }

            // rows[b] computed, head[b] through the head; one timed step = forward + row stats.
            auto measure = [&](const std::vector<std::vector<int32_t>>& rows, const std::vector<std::vector<int32_t>>& head,
                               double fraction) {
                std::vector<ForwardItem> items(static_cast<std::size_t>(batch));
                std::vector<std::vector<int32_t>> head_index(static_cast<std::size_t>(batch));
                for (int b = 0; b < batch; ++b) {
                    const auto bi = static_cast<std::size_t>(b);
                    items[bi].tokens = tokens[bi];
                    items[bi].rows = rows[bi];
                    items[bi].head_rows = head[bi];
                    items[bi].cache = caches[bi].get();
                    head_index[bi].resize(head[bi].size());
                    std::iota(head_index[bi].begin(), head_index[bi].end(), 0);
                }
                auto stats = [&] {
                    for (int b = 0; b < batch; ++b) {
                        RowStatsRequest req;
                        req.item = b;
                        req.head_row_index = head_index[static_cast<std::size_t>(b)];
                        req.positions = head[static_cast<std::size_t>(b)];
                        req.display_top_k = 0;
                        (void)backend.row_stats(req);
                    }
                };
                auto step = [&] {
                    backend.forward(items);
                    stats();
                };
                for (int w = 0; w < o.warmup; ++w) step();
                std::vector<double> secs;
                for (int r = 0; r < o.reps; ++r) {
                    const auto t0 = std::chrono::steady_clock::now();
                    step();
                    secs.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
                }
                // The logits of the last step stay put, so the statistics can be timed on their own
                // (row_stats waits for the device, hence the untimed first call after the forward).
                stats();
                std::vector<double> stat_secs;
                for (int r = 0; r < o.reps; ++r) {
                    const auto t0 = std::chrono::steady_clock::now();
                    stats();
                    stat_secs.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
                }
                StepTiming t;
                t.stats_seconds = median(stat_secs);
                t.fraction = fraction;
                t.rows = static_cast<int>(rows[0].size());
                t.head_rows = static_cast<int>(head[0].size());
                t.seconds = median(secs);
                t.min_seconds = *std::min_element(secs.begin(), secs.end());
                t.cost = step_cost(c, n, t.rows, t.head_rows, batch);
                t.roofline_seconds = roofline_seconds(t.cost, rates);
                return t;
            };

            StepBenchPoint p;
            p.n = n;
            p.prompt = o.prompt_len;
            p.gen = gen;
            p.batch = batch;
            std::vector<int32_t> all(static_cast<std::size_t>(n)), gen_rows(static_cast<std::size_t>(gen));
            std::iota(all.begin(), all.end(), 0);
            std::iota(gen_rows.begin(), gen_rows.end(), o.prompt_len);
            if (o.progress) o.progress("dense steps, N = " + std::to_string(n) + ", batch " + std::to_string(batch));
            // Also fills every cache, which the sparse steps then read for the rows they skip.
            p.dense = measure(std::vector(static_cast<std::size_t>(batch), all),
                              std::vector(static_cast<std::size_t>(batch), gen_rows), 1.0);
            for (std::size_t fi = 0; fi < o.fractions.size(); ++fi) {
                const double f = o.fractions[fi];
                const int m = std::clamp(static_cast<int>(std::lround(f * gen)), 1, gen);
                std::vector<std::vector<int32_t>> rows(static_cast<std::size_t>(batch));
                for (int b = 0; b < batch; ++b) {
                    // A different random subset per canvas and fraction, fixed by the seed.
                    std::vector<int32_t> order = gen_rows;
                    const uint64_t stream = 1 + (static_cast<uint64_t>(n) << 24) + (static_cast<uint64_t>(b) << 8) + fi;
                    for (int i = gen - 1; i > 0; --i) {
                        const int j = static_cast<int>(rng.bits(stream, static_cast<uint64_t>(i)) % static_cast<uint64_t>(i + 1));
                        std::swap(order[static_cast<std::size_t>(i)], order[static_cast<std::size_t>(j)]);
                    }
                    rows[static_cast<std::size_t>(b)].assign(order.begin(), order.begin() + m);
                    std::sort(rows[static_cast<std::size_t>(b)].begin(), rows[static_cast<std::size_t>(b)].end());
                }
                if (o.progress)
                    o.progress("sparse steps, N = " + std::to_string(n) + ", batch " + std::to_string(batch) + ", " +
                               std::to_string(m) + " of " + std::to_string(gen) + " generated rows");
                p.sparse.push_back(measure(rows, rows, f));
            }
            report.points.push_back(std::move(p));
        }
    }
    return report;
}

std::string step_bench_json(const StepBenchReport& r) {
    using nlohmann::ordered_json;
    const ModelConfig& c = r.config;
    auto timing = [](const StepTiming& t, double dense_seconds) {
        ordered_json j;
        j["fraction"] = t.fraction;
        j["rows"] = t.rows;
        j["head_rows"] = t.head_rows;
        j["ms"] = t.seconds * 1e3;
        j["ms_min"] = t.min_seconds * 1e3;
        j["tflops"] = t.seconds > 0 ? t.cost.flops / t.seconds / 1e12 : 0.0;
        j["flops"] = t.cost.flops;
        j["bytes"] = t.cost.bytes();
        j["stats_ms"] = t.stats_seconds * 1e3;
        j["stats_share"] = t.seconds > 0 ? t.stats_seconds / t.seconds : 0.0;
        j["roofline_ms"] = t.roofline_seconds * 1e3;
        j["roofline_pct"] = t.seconds > 0 ? 100.0 * t.roofline_seconds / t.seconds : 0.0;
        if (dense_seconds > 0) j["ratio_to_dense"] = t.seconds / dense_seconds;
        return j;
    };
    ordered_json j;
    j["schema"] = "dlmscope-step-bench/1";
    j["backend"] = r.backend;
    j["device"] = r.device;
    j["model"] = {{"family", std::string(family_name(c.family))}, {"d_model", c.d_model},  {"n_layers", c.n_layers},
                  {"n_heads", c.n_heads},   {"n_kv_heads", c.n_kv_heads}, {"head_dim", c.head_dim},
                  {"d_ff", c.d_ff},         {"vocab_size", c.vocab_size}, {"parameters", parameter_count(c)}};
    j["roofline"] = {{"gemm_tflops", r.rates.gemm_flops_per_s / 1e12},
                     {"copy_gbps", r.rates.copy_bytes_per_s / 1e9},
                     {"how", r.rates.how}};
    j["prompt_len"] = r.options.prompt_len;
    j["reps"] = r.options.reps;
    j["warmup"] = r.options.warmup;
    j["seed"] = r.options.seed;
    ordered_json points = ordered_json::array();
    for (const StepBenchPoint& p : r.points) {
        ordered_json pj;
        pj["n"] = p.n;
        pj["prompt"] = p.prompt;
        pj["gen"] = p.gen;
        pj["batch"] = p.batch;
        pj["dense"] = timing(p.dense, 0.0);
        ordered_json sparse = ordered_json::array();
        for (const StepTiming& t : p.sparse) sparse.push_back(timing(t, p.dense.seconds));
        pj["sparse"] = sparse;
        points.push_back(pj);
    }
    j["points"] = points;
    return j.dump(2) + "\n";
}

}  // namespace dlm
