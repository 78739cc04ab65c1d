#pragma once
// Small formatting helpers shared by the subcommands' human-readable output.
#include <cstdint>
#include <string>

#include "trace/step_trace.h"

namespace dlm::cli {

// 4.5205e+12 (4.52 T): scientific for comparison with papers, SI for reading.
std::string format_flops(double flops);
// "16.03 GB (16031162368 bytes)"
std::string format_bytes(uint64_t bytes);
// "8,015,581,184"
std::string format_grouped(long long n);
// Fixed-point with `digits` decimals.
std::string format_fixed(double v, int digits);
// The cost of a finished run as `run` and `trace` print it, labels padded to `label_width`: paper
// FLOPs, a guider's, the dense forwards of the steps taken and the baseline sampler's run, and the
// strategy's cost over each.
std::string cost_lines(const TraceSummary& s, int gen_length, int label_width);
// Writes "warning: <message>" on stderr.
void print_warning(const std::string& message);
// Writes "note: <message>" on stderr (information, e.g. which backend runs and why).
void print_note(const std::string& message);

}  // namespace dlm::cli
