#include "bench_decode.h"

#include "bench_model.h"
#include "bench_report.h"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <thread>

#include <nlohmann/json.hpp>

#include "decode/decode_session.h"
#include "decode_options.h"
#include "model/hf_cache.h"
#include "model/checkpoint.h"
#include "model/model_weights.h"
#include "model/weight_store.h"
#include "output.h"
#include "text/tokenizer.h"
#include "util/counter_rng.h"
#include "util/error.h"
#include "util/median.h"

namespace dlm::cli {

namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Forwards every call and adds up the wall time of forward() and row_stats(). On the GPU the
// forward call may return before the device is done; row_stats() then waits for it, so the split
// is "time until the forward call returns" vs "time in the statistics call": their sum and the
// rest of the step (the strategy's host work) are exact either way.
class TimedBackend final : public Backend {
public:
    explicit TimedBackend(Backend& inner) : inner_(inner) {}
    std::string name() const override { return inner_.name(); }
    const ModelConfig& config() const override { return inner_.config(); }
    std::unique_ptr<KvCache> make_cache(int positions) override { return inner_.make_cache(positions); }
    std::unique_ptr<PosteriorStore> make_posterior_store(int positions) override {
        return inner_.make_posterior_store(positions);
    }
    bool supports_attention_layout() const override { return inner_.supports_attention_layout(); }
    void forward(std::span<const ForwardItem> batch) override {
        const auto t0 = Clock::now();
        inner_.forward(batch);
        forward_s += since(t0);
        ++forwards;
    }
    std::vector<RowStats> row_stats(const RowStatsRequest& req) override {
        const auto t0 = Clock::now();
        auto r = inner_.row_stats(req);
        stats_s += since(t0);
        return r;
    }
    std::vector<float> logits(int item, int head_row_index) const override { return inner_.logits(item, head_row_index); }
    std::vector<float> attention_lse(int item) const override { return inner_.attention_lse(item); }
    std::vector<float> last_layer_attention(int item) const override { return inner_.last_layer_attention(item); }
    uint64_t rows_computed() const override { return inner_.rows_computed(); }
    TransferTotals transfers() const override { return inner_.transfers(); }

    void reset() { forward_s = stats_s = 0, forwards = 0; }
    double forward_s = 0, stats_s = 0;
    long long forwards = 0;

private:
    Backend& inner_;
};

struct DecodeRun {
    TraceSummary sum;
    double wall_s = 0, forward_s = 0, stats_s = 0;
    long long forwards = 0;
    TransferTotals copies;  // host<->device copies of the decode (none on the CPU)
};

struct DecodeResult {
    StrategyPreset preset;
    int gen = 0;
    DecodeRun median_run;  // the run whose wall time is the median
    std::vector<double> walls;
    double tokens_per_forward() const {
        return median_run.forwards > 0 ? double(median_run.sum.tokens_unmasked) / double(median_run.forwards) : 0.0;
    }
    double ms_per_forward() const {
        return median_run.forwards > 0 ? 1e3 * median_run.wall_s / double(median_run.forwards) : 0.0;
    }
    double tps() const { return median_run.wall_s > 0 ? median_run.sum.tokens_unmasked / median_run.wall_s : 0.0; }
};

}  // namespace

const StrategyPreset& bench_preset(std::string_view name, std::string_view option) {
    while (!name.empty() && name.front() == ' ') name.remove_prefix(1);
    while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
    if (const StrategyPreset* p = find_strategy_preset(name)) return *p;
    for (const StrategyPreset& p : strategy_presets())
        if (p.settings.at("strategy") == name) return p;
    throw UsageError(std::string(option) + ": no preset '" + std::string(name) + "' (presets: " +
                     strategy_preset_names() + "; or a strategy key, e.g. fast-dllm)");
}

DecodeSettings preset_settings(const StrategyPreset& p, int gen) {
    const std::string g = std::to_string(gen);
    DecodeSettings s;
    for (const auto& [k, v] : apply_preset({{"gen_length", g}, {"steps", g}, {"block_length", "0"}}, p)) s.set(k, v);
    s.track_kl = TrackKl::Off;
    s.display_top_k = 0;
    return s;
}

CommandSpec with_decode_options(CommandSpec spec) {
    spec.options.push_back(
        {"strategies", "LIST", "decode: presets by name (dlmscope-cli settings --presets) or strategy key, "
                               "comma-separated; the first is the baseline (default \"LLaDA low-confidence,Fast-dLLM "
                               "dual cache,SureLock,SureLock + FreeCache\")"});
    spec.description +=
        "\n  decode       (only when named) whole decodes of a synthetic prompt (--prompt-len ids) at each\n"
        "               --gen-lens, one per preset in the same run, on any checkpoint (random weights from\n"
        "               make-checkpoint too): tokens/s, forwards, tokens per forward, ms per forward, time in\n"
        "               forward / statistics / strategy, and tokens/s projected at 2.77 tokens per forward.";
    return spec;
}

MarkdownSection decode_section(const DecodeBenchOptions& o) {
    if (o.model.empty()) throw UsageError("bench --section decode needs --model DIR");
    if (o.presets.empty()) throw UsageError("bench --section decode: no presets to run");
    const std::filesystem::path dir(o.model);
    std::error_code ec;
    auto note = [](const std::string& line) { std::cerr << "bench: " << line << std::endl; };

    const BenchModel model = load_bench_model(dir);
    const ModelConfig& config = model.config;
    const Tokenizer* tokenizer = model.tokenizer.get();
    const bool has_tokenizer = model.has_tokenizer;
    const ModelWeights& w = model.weights();
    note("loading " + o.model + " onto the " + backend_kind_name(o.backend) + " backend");
    CpuBackendOptions cpu;
    cpu.threads = o.threads;
    BackendChoice choice = make_backend(w, o.backend, cpu);
    if (!choice.note.empty()) std::cerr << "note: " << choice.note << std::endl;
    TimedBackend backend(*choice.backend);
    GuiderCache guiders(fellow_models_folder(dir));
    const std::vector<int32_t> prompt = synthetic_prompt(config, *tokenizer, o.prompt_len);

    auto settings_for = [&](const StrategyPreset& p, int gen) {
        const DecodeSettings s = preset_settings(p, gen);
        check_settings(s, config, static_cast<int>(prompt.size()), nullptr);
        return s;
    };
    auto decode_once = [&](const StrategyPreset& p, int gen) {
        DecodeSession session(backend, *tokenizer, config, prompt, settings_for(p, gen), DecodeLabels{.model = model_folder_name(dir)}, &guiders);
        backend.reset();
        const TransferTotals copied_before = backend.transfers();
        const auto t0 = Clock::now();
        session.run();
        DecodeRun r;
        r.wall_s = since(t0);
        // Read after the wall time: the decode's last statistics call has waited for every copy.
        r.copies = backend.transfers().since(copied_before);
        r.forward_s = backend.forward_s;
        r.stats_s = backend.stats_s;
        r.forwards = backend.forwards;
        r.sum = session.summary();
        return r;
    };

    // One short untimed decode first: cuBLAS handles, kernel loading and the allocator's first
    // growth belong to no preset.
    note("warm-up decode");
    (void)decode_once(o.presets.front(), std::min(32, o.gen_lens.front()));

    std::vector<DecodeResult> results;
    for (int gen : o.gen_lens) {
        std::vector<std::vector<DecodeRun>> runs(o.presets.size());
        // Presets interleaved per repetition: drift in clocks or load falls on all of them alike.
        for (int rep = 0; rep < o.reps; ++rep)
            for (std::size_t i = 0; i < o.presets.size(); ++i) {
                runs[i].push_back(decode_once(o.presets[i], gen));
                note("decode gen " + std::to_string(gen) + " " + o.presets[i].name + ": " +
                     format_fixed(runs[i].back().wall_s, 2) + " s, " + std::to_string(runs[i].back().forwards) + " forwards");
            }
        for (std::size_t i = 0; i < o.presets.size(); ++i) {
            DecodeResult res;
            res.preset = o.presets[i];
            res.gen = gen;
            for (const auto& r : runs[i]) res.walls.push_back(r.wall_s);
            const double m = median(res.walls);
            res.median_run = *std::min_element(runs[i].begin(), runs[i].end(), [&](const DecodeRun& a, const DecodeRun& b) {
                return std::abs(a.wall_s - m) < std::abs(b.wall_s - m);
            });
            results.push_back(std::move(res));
        }
    }

    std::string device = backend_label(backend.name());
    if (backend.name() != "cuda")
        device += ", " + (o.threads > 0 ? std::to_string(o.threads) : std::string("all")) + " thread(s) of " +
                  std::to_string(std::thread::hardware_concurrency());
    if (!choice.note.empty()) device += " — " + choice.note;
    MarkdownSection s("decode", "End-to-end decode: tokens/s per strategy (" + std::string(backend.name() == "cuda" ? "CUDA" : "CPU") + ")");
    s.paragraph(
        "Whole decodes of the same " + std::to_string(o.prompt_len) + "-token synthetic prompt (seeded ordinary ids), one "
        "per preset in the same run, temperature 0, the first preset being the baseline of the ratios. *Forwards* = "
        "backend forward calls (a step may make more than one, e.g. a cache refresh); *tok/fwd* = generated tokens per "
        "forward; *ms/fwd* = wall time / forwards, the whole step included (forward, statistics, the strategy's host "
        "work); *forward / stats / host* = shares of the wall time spent in the forward call, in the row statistics "
        "call (which on the GPU also waits for the forward to finish) and elsewhere; *copies* = the device time of "
        "the host<->device copies (index arrays up, statistics down, rows for the CPU's sampling fallback) per "
        "forward and the bytes they moved (none on the CPU; they overlap the forward call's wall time rather "
        "than add to it); *projected tok/s* = " +
        format_fixed(o.projected_tokens_per_forward, 2) +
        " tokens per forward / ms per forward, because random weights rarely pass a confidence threshold. Median of " +
        std::to_string(o.reps) + " decode(s) per preset after one warm-up decode.");
    s.bullet("backend: " + table_cell(device) + "; measured " + utc_now());
    s.bullet("model: " + table_cell(model_folder_name(dir)) + " (" + std::string(family_name(config.family)) + ", L=" +
             std::to_string(config.n_layers) + ", d=" + std::to_string(config.d_model) + ", V=" +
             std::to_string(config.vocab_size) + ", " + format_grouped(parameter_count(config)) + " parameters" +
             (has_tokenizer ? "" : ", no tokenizer: ids only") + ")");
    s.paragraph("Command:");
    s.code_block(o.command, "sh");
    std::vector<std::vector<std::string>> rows;
    nlohmann::ordered_json jr = nlohmann::ordered_json::array();
    for (const DecodeResult& r : results) {
        const DecodeResult* base = nullptr;
        for (const DecodeResult& b : results)
            if (b.gen == r.gen && !base) base = &b;
        const DecodeRun& m = r.median_run;
        const double wall = m.wall_s > 0 ? m.wall_s : 1;
        const double host = std::max(0.0, m.wall_s - m.forward_s - m.stats_s);
        const double per_fwd = m.forwards > 0 ? 1.0 / double(m.forwards) : 0.0;
        const std::string copies = m.copies.copies() == 0
                                       ? std::string("–")
                                       : format_fixed(m.copies.ms() * per_fwd, 3) + " ms · " +
                                             format_fixed(double(m.copies.bytes()) * per_fwd / 1024.0, 1) + " KB";
        const double proj = r.ms_per_forward() > 0 ? o.projected_tokens_per_forward * 1e3 / r.ms_per_forward() : 0;
        const double speedup = base && m.wall_s > 0 ? base->median_run.wall_s / m.wall_s : 0;
        const double flops_ratio =
            base && base->median_run.sum.paper_flops > 0 ? m.sum.paper_flops / base->median_run.sum.paper_flops : 0;
        rows.push_back({std::to_string(r.gen), r.preset.name, format_fixed(r.tps(), 1), std::to_string(m.forwards),
                        format_fixed(r.tokens_per_forward(), 2), format_fixed(r.ms_per_forward(), 2),
                        format_fixed(100 * m.forward_s / wall, 0) + " / " + format_fixed(100 * m.stats_s / wall, 0) + " / " +
                            format_fixed(100 * host / wall, 0) + "%",
                        copies, format_fixed(flops_ratio, 3), format_fixed(speedup, 2) + "×", format_fixed(proj, 0)});
        jr.push_back({{"gen", r.gen}, {"label", r.preset.name}, {"strategy", r.preset.settings.at("strategy")},
                      {"block", preset_settings(r.preset, r.gen).block_length},
                      {"wall_s", m.wall_s}, {"walls_s", r.walls}, {"forwards", m.forwards}, {"steps", m.sum.steps},
                      {"tokens", m.sum.tokens_unmasked}, {"tokens_per_forward", r.tokens_per_forward()},
                      {"ms_per_forward", r.ms_per_forward()}, {"tps", r.tps()}, {"forward_s", m.forward_s},
                      {"stats_s", m.stats_s}, {"host_s", host},
                      {"copies", {{"to_device", m.copies.to_device_copies}, {"to_device_bytes", m.copies.to_device_bytes},
                                  {"to_device_ms", m.copies.to_device_ms}, {"to_host", m.copies.to_host_copies},
                                  {"to_host_bytes", m.copies.to_host_bytes}, {"to_host_ms", m.copies.to_host_ms}}},
                      {"paper_flops", m.sum.paper_flops}, {"paper_flops_dense", m.sum.paper_flops_dense},
                      {"flops_ratio_to_baseline", flops_ratio}, {"speedup", speedup}, {"rows_computed", m.sum.rows_computed},
                      {"rows_total", m.sum.rows_total}, {"projected_tps", proj}});
    }
    s.table({"gen", "preset", "tok/s", "forwards", "tok/fwd", "ms/fwd", "forward / stats / host", "copies per forward", "FLOPs ratio",
             "speedup", "projected tok/s"},
            rows);
    if (!o.json_out.empty()) {
        const std::filesystem::path p(o.json_out);
        if (p.has_parent_path()) std::filesystem::create_directories(p.parent_path(), ec);
        nlohmann::ordered_json j{{"schema", "dlmscope-decode-bench/1"}, {"backend", backend.name()}, {"device", device},
                                 {"model", model_folder_name(dir)}, {"prompt_len", o.prompt_len},
                                 {"projected_tokens_per_forward", o.projected_tokens_per_forward}, {"runs", jr}};
        std::ofstream f(p, std::ios::trunc);
        f << j.dump(2) << '\n';
        if (!f) throw Error("cannot write " + o.json_out);
        note("wrote " + o.json_out);
    }
    return s;
}

}  // namespace dlm::cli
