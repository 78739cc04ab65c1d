#pragma once
// SwiGLU of the fused gate|up projection: out[r, j] = silu(g[r, j]) · u[r, j] in fp32, stored bf16
// as the input of the down projection.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

namespace dlm::cuda {

// gate_up: fp32 [rows][2 * ff] (gate in columns [0, ff), up in [ff, 2ff)); out: bf16 [rows][ff].
void launch_swiglu(const float* gate_up, int rows, int ff, __nv_bfloat16* out, cudaStream_t stream);

}  // namespace dlm::cuda
