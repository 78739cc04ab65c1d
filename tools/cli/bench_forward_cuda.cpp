#include "bench_forward_cuda.h"

#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "model/checkpoint.h"
#include "model/hf_cache.h"
#include "model/model_weights.h"
#include "model/weight_store.h"
#include "output.h"
#include "util/error.h"

// Set by tools/cli/CMakeLists.txt for dlmscope-cli where dlm_kernels exists (not DLM_WITH_CUDA,
// which other targets may inherit without the kernels' include path).
#if defined(DLM_CLI_CUDA_BENCH) && DLM_CLI_CUDA_BENCH
#include "cuda_backend.h"
#include "device_probe.h"
#include "device_roofline.h"
#define DLM_BENCH_HAS_CUDA 1
#else
#define DLM_BENCH_HAS_CUDA 0
#endif

namespace dlm::cli {

namespace {

template <typename T>
std::vector<T> parse_list(const std::string& text, const std::string& option, T (*parse)(const std::string&, const std::string&)) {
    std::vector<T> out;
    std::stringstream ss(text);
    for (std::string w; std::getline(ss, w, ',');) out.push_back(parse(w, "--" + option));
    if (out.empty()) throw UsageError("--" + option + " is empty");
    return out;
}

int parse_int_item(const std::string& text, const std::string& what) {
    const long long v = parse_int(text, what);
    if (v < 1 || v > (1 << 20)) throw UsageError(what + ": " + text + " is not a positive size");
    return static_cast<int>(v);
}

double parse_fraction_item(const std::string& text, const std::string& what) {
    const double v = parse_double(text, what);
    if (!(v > 0.0 && v <= 1.0)) throw UsageError(what + ": " + text + " is not a fraction in (0, 1]");
    return v;
}

std::string ms(double seconds) { return format_fixed(seconds * 1e3, seconds < 0.01 ? 3 : 2); }

}  // namespace

CommandSpec with_forward_cuda_options(CommandSpec spec) {
    spec.options.push_back({"lengths", "LIST", "forward-cuda: canvas lengths N = prompt + generation (default 320,576,1088)"});
    spec.options.push_back({"prompt-len", "N", "forward-cuda, decode: prompt positions of every canvas (default 64)"});
    spec.options.push_back({"batch", "LIST", "forward-cuda: batch sizes (default 1,4)"});
    spec.options.push_back({"fractions", "LIST", "forward-cuda: shares of the generated rows computed (default 1,0.75,0.5,0.25)"});
    spec.options.push_back({"json", "FILE", "forward-cuda, decode: raw results as JSON (tools/bench/summarize_gpu_bench.py)"});
    spec.description +=
        "\n  forward-cuda (only when named; needs a CUDA build, a GPU and --model DIR, e.g. from\n"
        "               'make-checkpoint --dims llada-8b'): ms per denoising step (forward + argmax/confidence\n"
        "               of the generated rows) at each N and batch, TFLOP/s and % of the roofline measured on\n"
        "               the device (cuBLAS bf16 GEMM rate, copy bandwidth), and SureLock-shaped steps that\n"
        "               compute a share of the generated rows (prompt cached) against the dense step.";
    return spec;
}

ForwardCudaOptions forward_cuda_options_from_args(const ParsedArgs& a, const std::string& command) {
    ForwardCudaOptions o;
    o.model = a.get_or("model", "");
    o.command = command;
    o.json_out = a.get_or("json", "");
    StepBenchOptions& s = o.steps;
    s.reps = static_cast<int>(a.get_int("reps", 1, 1000).value_or(10));
    s.prompt_len = static_cast<int>(a.get_int("prompt-len", 0, 1 << 20).value_or(s.prompt_len));
    if (auto v = a.get("lengths")) s.lengths = parse_list<int>(*v, "lengths", parse_int_item);
    if (auto v = a.get("batch")) s.batches = parse_list<int>(*v, "batch", parse_int_item);
    if (auto v = a.get("fractions")) s.fractions = parse_list<double>(*v, "fractions", parse_fraction_item);
    for (int n : s.lengths)
        if (n <= s.prompt_len)
            throw UsageError("--lengths: " + std::to_string(n) + " leaves no generated rows after the " +
                             std::to_string(s.prompt_len) + "-position prompt");
    return o;
}

MarkdownSection render_forward_cuda_section(const StepBenchReport& r, const std::string& model, const std::string& command) {
    const ModelConfig& c = r.config;
    MarkdownSection s("forward-cuda", "CUDA forward step: dense and SureLock-shaped, against the roofline");
    s.paragraph(
        "One denoising step as the decoder issues it: a forward over a batch of canvases (" +
        std::to_string(r.options.prompt_len) +
        " prompt positions + the generation, N in all), the LM head on the generated rows, and their argmax and "
        "confidence back on the host (which ends the step). *Dense* computes all N rows. *SureLock-shaped* steps "
        "compute a random share of the generated rows only; the prompt and the other rows read their K/V from "
        "the cache. Median of " + std::to_string(r.options.reps) + " steps after " + std::to_string(r.options.warmup) +
        " warm-ups, wall clock. *Statistics* = the row statistics of the step (argmax and confidence of the "
        "generated rows, their download) timed alone on the step's logits, and their share of the dense step. *Roofline* = max(FLOPs / measured bf16 GEMM rate, (bf16 weights + K/V read and "
        "written) / measured copy bandwidth); FLOPs are design.md §6 (attention included) plus the LM head.");
    s.bullet("device: " + table_cell(r.device) + "; backend " + r.backend + "; measured " + utc_now());
    s.bullet("roofline ceilings: " + table_cell(r.rates.how));
    s.bullet("model: " + table_cell(model) + " (llada, L=" + std::to_string(c.n_layers) + ", d=" + std::to_string(c.d_model) +
             ", H=" + std::to_string(c.n_heads) + ", d_ff=" + std::to_string(c.d_ff) + ", V=" + std::to_string(c.vocab_size) +
             ", " + format_grouped(parameter_count(c)) + " parameters)");
    s.paragraph("Command:");
    s.code_block(command, "sh");

    std::vector<std::string> header{"N", "batch", "dense ms", "TFLOP/s", "roofline ms", "% of roofline", "statistics ms (share)"};
    for (double f : r.options.fractions) header.push_back(format_fixed(100 * f, 0) + "% rows: ms (ratio)");
    std::vector<std::vector<std::string>> rows;
    for (const StepBenchPoint& p : r.points) {
        const StepTiming& d = p.dense;
        std::vector<std::string> row{std::to_string(p.n), std::to_string(p.batch), ms(d.seconds),
                                     format_fixed(d.seconds > 0 ? d.cost.flops / d.seconds / 1e12 : 0.0, 1),
                                     ms(d.roofline_seconds),
                                     format_fixed(d.seconds > 0 ? 100.0 * d.roofline_seconds / d.seconds : 0.0, 1) + "%",
                                     ms(d.stats_seconds) + " (" +
                                         format_fixed(d.seconds > 0 ? 100.0 * d.stats_seconds / d.seconds : 0.0, 1) + "%)"};
        for (const StepTiming& t : p.sparse)
            row.push_back(ms(t.seconds) + " (" + format_fixed(d.seconds > 0 ? t.seconds / d.seconds : 0.0, 3) + ")");
        rows.push_back(std::move(row));
    }
    s.table(header, rows);
    return s;
}

MarkdownSection forward_cuda_section(const ForwardCudaOptions& o) {
#if !DLM_BENCH_HAS_CUDA
    (void)o;
    throw Error("bench --section forward-cuda needs a CUDA build: this dlmscope-cli was built without CUDA (configure "
                "found no nvcc, or DLM_CUDA=OFF); tools/bench/pack_for_gpu.sh builds one for the H200");
#else
    if (o.model.empty())
        throw UsageError("bench --section forward-cuda needs --model DIR (e.g. a folder made by 'dlmscope-cli "
                         "make-checkpoint --dims llada-8b --out DIR')");
    const std::filesystem::path dir = checked_model_folder(o.model);
    const cuda::DeviceProbe probe = cuda::probe_device();
    if (!probe.available) throw Error("bench --section forward-cuda: " + probe.message);

    auto note = [](const std::string& line) { std::cerr << "bench: " << line << std::endl; };
    ModelConfig config = load_model_config(dir / "config.json");
    const ModelWeights weights = bind_weights(config, WeightStore::open(dir));
    note("measuring the roofline ceilings on " + probe.name);
    const RooflineRates rates = cuda::measure_device_roofline();
    note(rates.how);
    note("uploading " + o.model + " to the device");
    std::unique_ptr<Backend> backend = make_cuda_backend(weights);
    StepBenchOptions steps = o.steps;
    steps.progress = note;
    const std::string device = probe.name + " (compute " + std::to_string(probe.compute_major) + "." +
                               std::to_string(probe.compute_minor) + ", " +
                               format_fixed(static_cast<double>(probe.total_memory) / double(1ull << 30), 1) +
                               " GiB; attention tiling " + cuda_attention_tiling() + ")";
    const StepBenchReport report = run_step_bench(*backend, rates, device, steps);
    if (!o.json_out.empty()) {
        const std::filesystem::path p(o.json_out);
        std::error_code ec;  // a folder that cannot be made shows as the write's error below
        if (p.has_parent_path()) std::filesystem::create_directories(p.parent_path(), ec);
        std::ofstream f(p, std::ios::trunc);
        f << step_bench_json(report);
        if (!f) throw Error("cannot write " + o.json_out);
        note("wrote " + o.json_out);
    }
    return render_forward_cuda_section(report, model_folder_name(dir), o.command);
#endif
}

}  // namespace dlm::cli
