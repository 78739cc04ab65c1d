#pragma once
// fp32 CPU backend over OpenBLAS sgemm. Weights stored as BF16/F16 are converted to fp32 once
// when they fit the budget, otherwise one layer at a time (so LLaDA-8B runs, slowly, in 24 GB).
#include <cstddef>
#include <memory>

#include "compute/backend.h"

namespace dlm {

struct CpuBackendOptions {
    std::size_t weight_cache_bytes = std::size_t(8) << 30;  // fp32 weights kept resident up to this
    int threads = 0;  // 0 = automatic (cpu_default_threads)
};

// Threads the CPU backend uses when none are asked for: one for a model under 20 M parameters,
// whose GEMMs are too small to share (on a 2-core machine with the other core busy, 2 threads
// decoded the 2.2 M embedded model 20x slower than one), all cores otherwise.
int cpu_default_threads(const ModelConfig& config);

std::unique_ptr<Backend> make_cpu_backend(const ModelWeights& weights, CpuBackendOptions options = {});

}  // namespace dlm
