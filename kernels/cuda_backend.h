#pragma once
// The bf16 CUDA backend: the same Backend interface as the CPU backend, so every
// strategy runs on it unchanged. Plain C++ header: no CUDA types, so the engine's backend factory
// and the tools can include it.
#include <cstddef>
#include <memory>

#include "compute/backend.h"

namespace dlm {

struct CudaBackendOptions {
    int device = 0;
};

// Uploads the weights as bf16 (fusing Q|K|V and gate|up into one matrix each). Throws dlm::Error
// with a readable message when no device is usable or the weights do not fit (bytes asked and
// free), leaving nothing allocated behind.
std::unique_ptr<Backend> make_cuda_backend(const ModelWeights& weights, CudaBackendOptions options = {});

// The attention kernel's tiling this process uses, "wide", "narrow" or "narrow4" (DLM_CUDA_ATTENTION_TILING;
// kernels/attention.cuh): the benchmarks name it beside their figures. Throws dlm::Error on a
// value that is neither.
const char* cuda_attention_tiling();

}  // namespace dlm
