#pragma once
// fp32 CPU backend. Where the CPU has AVX-512F or AVX2 + FMA and the fp32 copies of all weight
// matrices fit the budget, they are packed into panels once at load (panel_gemm.h); otherwise the
// products are OpenBLAS sgemm calls, on fp32 copies made at load or on tiles widened from the
// memory map per product, so LLaDA-8B (16 GB in BF16) runs in about 16 GB.
#include <cstddef>
#include <memory>

#include "compute/backend.h"

namespace dlm {

struct CpuBackendOptions {
    // Weights are copied to fp32 at load (packed into panels, or BF16/F16 widened) when the copies
    // of all of them fit this (and the memory the machine has available); otherwise each GEMM
    // widens them tile by tile.
    std::size_t weight_cache_bytes = std::size_t(4) << 30;
    int threads = 0;  // 0 = automatic (cpu_default_threads)
};

// Threads the CPU backend uses when none are asked for: one for a model under 20 M parameters,
// whose GEMMs are too small to share (on a 2-core machine with the other core busy, 2 threads
// decoded the 2.2 M embedded model 20x slower than one), all cores otherwise.
int cpu_default_threads(const ModelConfig& config);

std::unique_ptr<Backend> make_cpu_backend(const ModelWeights& weights, CpuBackendOptions options = {});

}  // namespace dlm
