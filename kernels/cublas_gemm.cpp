#include "cublas_gemm.h"

#include "cuda_check.h"

namespace dlm::cuda {

namespace {

// cuBLAS's recommendation for Hopper (smaller cards use less of it).
constexpr std::size_t kWorkspaceBytes = std::size_t(32) << 20;

}  // namespace

CublasGemm::CublasGemm(cudaStream_t stream) {
    check(cublasCreate(&handle_), "cublasCreate");
    try {
        check(cublasSetStream(handle_, stream), "cublasSetStream");
        workspace_.reserve(kWorkspaceBytes, "cuBLAS workspace");
        check(cublasSetWorkspace(handle_, workspace_.get(), kWorkspaceBytes), "cublasSetWorkspace");
    } catch (...) {
        cublasDestroy(handle_);
        throw;
    }
}

CublasGemm::~CublasGemm() {
    if (handle_) cublasDestroy(handle_);
}

void CublasGemm::xwt(const __nv_bfloat16* x, int m, int k, const __nv_bfloat16* w, int n_out, float* y,
                     bool accumulate) {
    if (m <= 0 || n_out <= 0) return;
    const float alpha = 1.0f, beta = accumulate ? 1.0f : 0.0f;
    // cuBLAS is column-major: row-major Y[m][n_out] is column-major Yᵀ (n_out x m), and
    // Yᵀ = W · Xᵀ, where row-major W[n_out][k] read column-major is Wᵀ (hence OP_T) and row-major
    // X[m][k] read column-major is already Xᵀ.
    check(cublasGemmEx(handle_, CUBLAS_OP_T, CUBLAS_OP_N, n_out, m, k, &alpha, w, CUDA_R_16BF, k, x, CUDA_R_16BF, k,
                       &beta, y, CUDA_R_32F, n_out, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
          "cublasGemmEx (bf16 x bf16 -> fp32)");
}

}  // namespace dlm::cuda
