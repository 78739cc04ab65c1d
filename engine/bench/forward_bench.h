#pragma once
// The CPU forward micro-benchmark behind `dlmscope-cli bench`: dense throughput at a few canvas
// lengths, and how the time of a token-sparse forward falls with the fraction of rows computed
// (design.md §3: skipped rows are really skipped, so time must fall with them).
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "bench/random_weights.h"

namespace dlm {

struct ForwardBenchOptions {
    RandomLladaSpec model;                      // 4 layers, d = 512 by default
    std::vector<int> lengths = {128, 256, 512};
    std::vector<double> fractions = {0.25, 0.5, 0.75};
    int reps = 5;        // timed repetitions per measurement (median reported), after one warm-up
    int threads = 0;     // CPU backend threads; 0 = all cores
    uint64_t seed = 7;   // canvas tokens and which rows are sparse
    // Called between measurements (e.g. a CLI progress line); may be empty.
    std::function<void(const std::string&)> progress;
};

struct SparsePoint {
    double fraction = 0;   // requested share of rows computed
    int rows = 0;          // rows actually computed
    double seconds = 0;    // median wall time of one forward
    double ratio = 0;      // seconds / dense seconds at the same length
};

struct LengthPoint {
    int n = 0;
    double dense_seconds = 0;      // median wall time of one dense forward (LM head on every row)
    double dense_rows_per_s = 0;   // n / dense_seconds
    double dense_gflops = 0;       // design.md §6 GEMM FLOPs (incl. LM head) / dense_seconds / 1e9
    std::vector<SparsePoint> sparse;
};

struct ForwardBenchResult {
    std::string backend;       // "cpu"
    int threads = 0;           // threads the backend ran with (resolved)
    RandomLladaSpec model;
    int reps = 0;
    std::vector<LengthPoint> points;
};

// Throws dlm::Error for nonsense options (no lengths, a fraction outside (0, 1], reps < 1, a
// length beyond the model's context).
ForwardBenchResult run_forward_bench(const ForwardBenchOptions& options = {});

}  // namespace dlm
