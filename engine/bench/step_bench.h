#pragma once
// Times denoising steps as a decoder issues them, on any Backend: a *step* is one
// forward over a batch of canvases (prompt + generation) followed by the per-row statistics of
// the generated rows (argmax and confidence, which return to the host and so end the step).
// Dense steps compute every position and send the generated rows through the LM head;
// SureLock-shaped steps compute a random subset of the generated rows only (the prompt and the
// other rows read their K/V from the cache) and send those through the head.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "compute/backend.h"
#include "bench/roofline.h"

namespace dlm {

struct StepBenchOptions {
    int prompt_len = 64;
    std::vector<int> lengths = {320, 576, 1088};          // N = prompt + generation
    std::vector<int> batches = {1, 4};
    std::vector<double> fractions = {1.0, 0.75, 0.5, 0.25};  // of the generated rows, for sparse steps
    int reps = 10;    // timed steps per measurement; the median is reported
    int warmup = 2;   // untimed steps before each measurement
    uint64_t seed = 7;  // prompt tokens and which rows the sparse steps compute
    std::function<void(const std::string&)> progress;  // may be empty
};

struct StepTiming {
    double fraction = 1;     // share of the generated rows computed (dense: 1 and prompt rows too)
    int rows = 0;            // rows computed per canvas
    int head_rows = 0;       // rows through the LM head per canvas
    double seconds = 0;      // median wall time of one step
    double min_seconds = 0;
    // Median wall time of the step's row statistics alone (argmax/confidence of the head rows and
    // their download), re-run on the logits the step left: the sampling share of the step.
    double stats_seconds = 0;
    StepCost cost;           // of the whole batch
    double roofline_seconds = 0;
};

struct StepBenchPoint {
    int n = 0, prompt = 0, gen = 0, batch = 0;
    StepTiming dense;
    std::vector<StepTiming> sparse;  // one per fraction, in the order asked
};

struct StepBenchReport {
    std::string backend;  // Backend::name()
    std::string device;   // what it ran on, in words
    ModelConfig config;
    RooflineRates rates;
    StepBenchOptions options;
    std::vector<StepBenchPoint> points;  // lengths outer, batches inner
};

// Throws dlm::Error for nonsense options (no lengths or batches, a length not longer than the
// prompt or beyond the model's context, a fraction outside (0, 1], reps < 1).
StepBenchReport run_step_bench(Backend& backend, const RooflineRates& rates, const std::string& device,
                               const StepBenchOptions& options);

// The report as JSON (schema "dlmscope-step-bench/1"; times in ms, rates in TFLOP/s and GB/s):
// what tools/bench/summarize_gpu_bench.py reads.
std::string step_bench_json(const StepBenchReport& report);

}  // namespace dlm
