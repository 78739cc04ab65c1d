#pragma once
// RMSNorm of fp32 rows into the bf16 input of the next GEMM: out = x · rsqrt(mean(x²) + eps) · w.
// The mean is accumulated in fp32 per thread and reduced in fp32 (the CPU reference uses double;
// the bf16 output rounding dominates either way).
#include <cuda_bf16.h>
#include <cuda_runtime.h>

namespace dlm::cuda {

// x: fp32 [rows][d] (row stride d); weight: fp32 [d]; out: bf16 [rows][d].
void launch_rms_norm(const float* x, int rows, int d, const float* weight, float eps, __nv_bfloat16* out,
                     cudaStream_t stream);

}  // namespace dlm::cuda
