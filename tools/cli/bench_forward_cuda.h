#pragma once
// `dlmscope-cli bench --section forward-cuda`: the CUDA backend's denoising step on a checkpoint
// (dense and SureLock-shaped, compute/step_bench.h) against the device's measured roofline
// (kernels/device_roofline.h), as a markdown section and, on request, JSON for
// tools/bench/summarize_gpu_bench.py. A build without CUDA refuses the section with one line.
#include <string>
#include <vector>

#include "args.h"
#include "bench_report.h"
#include "bench/step_bench.h"

namespace dlm::cli {

struct ForwardCudaOptions {
    std::string model;      // checkpoint folder; required
    StepBenchOptions steps;
    std::string json_out;   // raw results; empty: none
    std::string command;    // the command line, for the report
};

// The section's own bench options (--lengths, --prompt-len, --batch, --fractions, --json),
// appended to the bench command's spec.
CommandSpec with_forward_cuda_options(CommandSpec bench_spec);
// Reads them (and --model, --reps: default 10) from the parsed bench arguments; UsageError
// naming the option for a malformed list.
ForwardCudaOptions forward_cuda_options_from_args(const ParsedArgs& args, const std::string& command);

// Measures and renders. Throws dlm::Error when this build has no CUDA, no device is usable, the
// model folder is missing or does not fit the device.
MarkdownSection forward_cuda_section(const ForwardCudaOptions& options);

// The markdown of a finished report (no device needed: tests render CPU reports with it).
MarkdownSection render_forward_cuda_section(const StepBenchReport& report, const std::string& model,
                                            const std::string& command);

}  // namespace dlm::cli
