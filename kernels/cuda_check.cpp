#include "cuda_check.h"

#include <cstdio>

#include "util/error.h"

namespace dlm::cuda {

namespace {

std::string gib(std::size_t bytes) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f GiB", static_cast<double>(bytes) / double(1ull << 30));
    return buf;
}

}  // namespace

std::string out_of_memory_message(const char* what, std::size_t bytes_asked) {
    cudaGetLastError();  // the failed allocation left an error behind; clear it before asking
    std::size_t free_b = 0, total_b = 0;
    std::string msg = std::string("CUDA out of memory in ") + what;
    if (bytes_asked > 0) msg += ": asked for " + gib(bytes_asked);
    if (cudaMemGetInfo(&free_b, &total_b) == cudaSuccess) {
        msg += (bytes_asked > 0 ? ", " : ": ") + gib(free_b) + " free of " + gib(total_b);
        int dev = 0;
        cudaDeviceProp prop{};
        if (cudaGetDevice(&dev) == cudaSuccess && cudaGetDeviceProperties(&prop, dev) == cudaSuccess)
            msg += std::string(" on ") + prop.name;
    }
    cudaGetLastError();
    return msg;
}

void check(cudaError_t err, const char* what) {
    if (err == cudaSuccess) return;
    if (err == cudaErrorMemoryAllocation) throw Error(out_of_memory_message(what, 0));
    cudaGetLastError();
    throw Error(std::string("CUDA error in ") + what + ": " + cudaGetErrorString(err));
}

void check(cublasStatus_t status, const char* what) {
    if (status == CUBLAS_STATUS_SUCCESS) return;
    if (status == CUBLAS_STATUS_ALLOC_FAILED) throw Error(out_of_memory_message(what, 0));
    throw Error(std::string("cuBLAS error in ") + what + ": " + cublasGetStatusString(status));
}

void check_launch(const char* kernel) { check(cudaGetLastError(), kernel); }

}  // namespace dlm::cuda
