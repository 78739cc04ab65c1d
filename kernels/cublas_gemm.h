#pragma once
// The backend's matrix products through cuBLAS: Y[m][n_out] (fp32, row-major) = X[m][k] ·
// W[n_out][k]ᵀ with X and W in bf16 and fp32 accumulation (CUBLAS_COMPUTE_32F), optionally
// accumulated into Y (beta = 1, the residual stream). One handle, bound to the backend's stream.
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstddef>

#include "device_buffer.h"

namespace dlm::cuda {

class CublasGemm {
public:
    explicit CublasGemm(cudaStream_t stream);
    ~CublasGemm();
    CublasGemm(const CublasGemm&) = delete;
    CublasGemm& operator=(const CublasGemm&) = delete;

    // y (row stride n_out) = x (row stride k) · wᵀ (+ y when accumulate). m == 0 does nothing.
    void xwt(const __nv_bfloat16* x, int m, int k, const __nv_bfloat16* w, int n_out, float* y, bool accumulate);

private:
    cublasHandle_t handle_ = nullptr;
    DeviceBuffer<unsigned char> workspace_;
};

}  // namespace dlm::cuda
