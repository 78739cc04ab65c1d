#include "bench_step_cpu.h"

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iostream>
#include <thread>

#include <nlohmann/json.hpp>

#include "args.h"
#include "bench_model.h"
#include "decode_options.h"
#include "compute/cpu/cpu_backend.h"
#include "compute/cpu/cpu_thread_pool.h"
#include "compute/cpu/weight_gemm.h"
#include "decode/decode_session.h"
#include "decode/decode_settings.h"
#include "model/hf_cache.h"
#include "output.h"
#include "util/counter_rng.h"
#include "util/error.h"
#include "util/median.h"

namespace dlm::cli {

namespace {

using Clock = std::chrono::steady_clock;

double peak_rss_bytes() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return double(u.ru_maxrss) * 1024.0;  // Linux reports kB
}

double weight_bytes(const ModelWeights& w) {
    double total = 0;
    for (const auto& [name, t] : w.store->all()) total += double(t->nbytes);
    return total;
}

// fp32 GEMM rate (FLOP/s) of X[m, d] · W[d_ff, d]ᵀ through the backend's own tiled product, with
// `threads` threads: the rate the floor is computed at.
double fp32_gemm_rate(const ModelConfig& c, int m, int threads) {
    const std::size_t n = static_cast<std::size_t>(c.d_ff), k = static_cast<std::size_t>(c.d_model);
    std::vector<float> w(n * k), x(static_cast<std::size_t>(m) * k), y(static_cast<std::size_t>(m) * n);
    const CounterRng rng(5, rng_stream::kStrategy);
    for (std::size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(rng.uniform(0, i) - 0.5) * 0.05f;
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(rng.uniform(1, i) - 0.5);
    cpu::ThreadPool pool(threads);
    cpu::WeightGemm gemm(pool);
    cpu::WeightMatrix wm;
    wm.f32 = w.data();
    wm.rows = c.d_ff;
    wm.cols = c.d_model;
    std::vector<double> times;
    for (int rep = 0; rep < 4; ++rep) {
        const auto t0 = Clock::now();
        gemm.xwt(x.data(), m, wm, y.data(), false);
        if (rep > 0) times.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
    }
    return 2.0 * m * double(n) * double(k) / median(times);
}

std::string gb(double bytes) { return format_fixed(bytes / 1e9, 2) + " GB"; }

}  // namespace

MarkdownSection step_cpu_section(const StepCpuOptions& o) {
    if (o.model.empty()) throw UsageError("bench --section step-cpu needs --model DIR (e.g. a folder made by "
                                          "'dlmscope-cli make-checkpoint --dims llada-8b')");
    auto note = [](const std::string& line) { std::cerr << "bench: " << line << std::endl; };
    const std::filesystem::path dir(o.model);
    note("loading " + o.model);
    const BenchModel model = load_bench_model(dir);
    const ModelConfig& config = model.config;
    CpuBackendOptions cpu;
    cpu.threads = o.threads;
    const auto backend = make_cpu_backend(model.weights(), cpu);
    const int threads = o.threads > 0 ? o.threads : cpu_default_threads(config);
    const double checkpoint_bytes = weight_bytes(model.weights());

    struct Row {
        int n = 0, prompt = 0, gen = 0;
        double cold_s = 0, warm_s = 0, flops = 0, rate = 0, peak = 0;
        std::vector<double> steps_s;
    };
    std::vector<Row> rows;
    for (int n : o.lengths) {
        Row r;
        r.n = n;
        r.prompt = std::min(o.prompt_len, n / 2);
        r.gen = n - r.prompt;
        const std::vector<int32_t> prompt = synthetic_prompt(config, *model.tokenizer, r.prompt);
        DecodeSettings s;
        s.gen_length = r.gen;
        s.steps = r.gen;
        s.block_length = r.gen;
        s.track_kl = TrackKl::Off;
        s.display_top_k = 0;
        check_settings(s, config, r.prompt, nullptr);
        DecodeSession session(*backend, *model.tokenizer, config, prompt, s, DecodeLabels{.model = model_folder_name(dir)});
        double flops = 0;
        for (int i = 0; i <= o.steps && !session.finished(); ++i) {
            const StepTrace t = session.step();
            r.steps_s.push_back(t.wall_ms / 1e3);
            if (i > 0) flops += t.paper_flops + t.lm_head_flops;
            note("N " + std::to_string(n) + " step " + std::to_string(i + 1) + ": " + format_fixed(t.wall_ms / 1e3, 2) + " s");
        }
        if (r.steps_s.size() < 2) throw Error("bench --section step-cpu: the decode at N = " + std::to_string(n) + " ended after one step");
        r.cold_s = r.steps_s.front();
        r.warm_s = median(std::vector<double>(r.steps_s.begin() + 1, r.steps_s.end()));
        r.flops = flops / double(r.steps_s.size() - 1);
        r.peak = peak_rss_bytes();
        note("N " + std::to_string(n) + ": measuring the fp32 GEMM rate on the FFN shape");
        r.rate = fp32_gemm_rate(config, n, threads);
        rows.push_back(std::move(r));
    }

    MarkdownSection sec("step-cpu", "One denoising step of a large checkpoint on the CPU");
    sec.paragraph(
        "A baseline decode (one block, steps = generation length) over a seeded prompt of ordinary ids, timed step by "
        "step. *Cold* is the first step (it reads the weights from the page cache or the disk into the process); *warm* "
        "is the median of the next steps. *Peak RSS* is the process's peak resident memory after the canvas ran (the "
        "mapped weights count once they are read), next to the checkpoint's bytes. *Floor* is the step's FLOPs (the "
        "GEMMs of every layer plus the LM head on the generated rows) at the rate of an fp32 product of the model's "
        "FFN shape [d_ff × d_model] at the same N, through the same tiled GEMM and threads, measured in this run: the "
        "time the step would take if every FLOP ran at that rate with the weights already in fp32.");
    sec.bullet("machine: " + std::to_string(std::thread::hardware_concurrency()) + " hardware threads, " +
               std::to_string(threads) + " used; measured " + utc_now());
    sec.bullet("model: " + table_cell(model_folder_name(dir)) + " (" + std::string(family_name(config.family)) +
               ", L=" + std::to_string(config.n_layers) + ", d=" + std::to_string(config.d_model) + ", d_ff=" +
               std::to_string(config.d_ff) + ", V=" + std::to_string(config.vocab_size) + ", " +
               format_grouped(parameter_count(config)) + " parameters, " + gb(checkpoint_bytes) + " of weights" +
               (model.has_tokenizer ? "" : ", no tokenizer: ids only") + ")");
    sec.paragraph("Command:");
    sec.code_block(o.command, "sh");
    std::vector<std::vector<std::string>> table;
    nlohmann::ordered_json jr = nlohmann::ordered_json::array();
    for (const Row& r : rows) {
        const double floor_s = r.rate > 0 ? r.flops / r.rate : 0;
        table.push_back({std::to_string(r.n), std::to_string(r.prompt) + " + " + std::to_string(r.gen),
                         format_fixed(r.cold_s, 2), format_fixed(r.warm_s, 2), format_fixed(r.flops / 1e12, 3),
                         format_fixed(r.rate / 1e9, 1), format_fixed(floor_s, 2),
                         format_fixed(floor_s > 0 ? r.warm_s / floor_s : 0, 2) + "×", gb(r.peak),
                         format_fixed(checkpoint_bytes > 0 ? r.peak / checkpoint_bytes : 0, 2)});
        jr.push_back({{"n", r.n}, {"prompt", r.prompt}, {"gen", r.gen}, {"steps_s", r.steps_s}, {"cold_s", r.cold_s},
                      {"warm_s", r.warm_s}, {"flops_per_step", r.flops}, {"fp32_gemm_flops_per_s", r.rate},
                      {"floor_s", floor_s}, {"peak_rss_bytes", r.peak}});
    }
    sec.table({"N", "prompt + gen", "cold step (s)", "warm step (s)", "TFLOP / step", "fp32 GEMM GFLOP/s",
               "floor (s)", "warm / floor", "peak RSS", "RSS / weights"},
              table);
    if (!o.json_out.empty()) {
        nlohmann::ordered_json j{{"schema", "dlmscope-step-cpu/1"}, {"model", model_folder_name(dir)},
                                 {"threads", threads}, {"weight_bytes", checkpoint_bytes}, {"rows", jr}};
        std::ofstream f(o.json_out, std::ios::trunc);
        f << j.dump(2) << '\n';
        if (!f) throw Error("cannot write " + o.json_out);
        note("wrote " + o.json_out);
    }
    return sec;
}

}  // namespace dlm::cli
