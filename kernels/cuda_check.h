#pragma once
// Every CUDA runtime and cuBLAS call goes through these: a failure becomes a dlm::Error whose
// message names the call and, for out-of-memory, the bytes asked for and what the device had
// free, so the app can show it and keep running.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <string>

namespace dlm::cuda {

// Throws dlm::Error("CUDA error in <what>: <cuda message>") unless err == cudaSuccess. A
// cudaErrorMemoryAllocation is reported like out_of_memory(what, 0).
void check(cudaError_t err, const char* what);
void check(cublasStatus_t status, const char* what);
// After a kernel launch: checks cudaGetLastError() (launch-configuration errors).
void check_launch(const char* kernel);

// "CUDA out of memory in <what>: asked for 1.50 GiB, 0.75 GiB free of 139.8 GiB on <device>".
std::string out_of_memory_message(const char* what, std::size_t bytes_asked);

}  // namespace dlm::cuda
