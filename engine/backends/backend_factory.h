#pragma once
// Chooses the compute backend: CUDA when this build has it and a device is usable, else the CPU
// backend, with a note saying why. Part of the dlm_backends library (engine/backends/), which links the CUDA
// backend only where nvcc was found at build time.
#include <memory>
#include <string>

#include "compute/backend.h"
#include "compute/cpu/cpu_backend.h"

namespace dlm {

enum class BackendKind { Auto, Cpu, Cuda };

// "auto" | "cpu" | "cuda"; throws dlm::Error naming the accepted values otherwise.
BackendKind parse_backend_kind(const std::string& text);
const char* backend_kind_name(BackendKind kind);

struct BackendChoice {
    std::unique_ptr<Backend> backend;
    std::string note;  // empty, or why the backend asked for is not the one chosen
};

// True when this build contains the CUDA backend (not whether a device is present).
bool cuda_backend_built();

BackendChoice make_backend(const ModelWeights& weights, BackendKind kind, CpuBackendOptions cpu_options = {});

}  // namespace dlm
