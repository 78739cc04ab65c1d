#pragma once
// `dlmscope-cli bench --section step-cpu`: what one denoising step of a large checkpoint costs on
// the CPU backend. Seconds per step at each canvas N, the process's peak resident memory next to
// the checkpoint's size, and the compute floor: the step's FLOPs at the fp32 GEMM rate measured in
// the same run on the model's own FFN shape with the same threads (BF16 weights are widened tile
// by tile inside the product; the floor is what the same product costs on fp32 weights).
#include <string>
#include <vector>

#include "bench_report.h"

namespace dlm::cli {

struct StepCpuOptions {
    std::string model;              // checkpoint folder; required
    std::vector<int> lengths{64, 320};  // canvas N = prompt + generation
    int prompt_len = 64;            // prompt positions, at most half of each canvas
    int steps = 3;                  // timed steps after the first (cold) one
    int threads = 0;                // CPU threads (0: the backend's default)
    std::string json_out;           // raw results; empty: none
    std::string command;            // the command line, for the report
};

// Measures and renders. Throws dlm::Error when the model folder is missing or does not load, or
// a canvas does not fit the model.
MarkdownSection step_cpu_section(const StepCpuOptions& options);

}  // namespace dlm::cli
