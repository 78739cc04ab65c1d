#pragma once
// Rotary embedding, split-half ("rotate_half") convention, applied in place to the Q heads and
// the K heads of the fused QKV projection output. Element i of a head pairs with i + hd/2;
// angle = float(position) * inv_freq[i] rounded to fp32 (as PyTorch and the CPU RopeTable do),
// then cos and sin are taken in double and rounded to fp32.
#include <cuda_runtime.h>

#include <cstdint>

namespace dlm::cuda {

// qkv: fp32 [rows][row_stride]; Q heads start at column 0, K heads at column q_heads * head_dim.
// positions: device [rows] RoPE positions (each row's canvas position, or its explicit position
// id: ForwardItem::position_ids); inv_freq: device fp32 [head_dim / 2].
void launch_rope(float* qkv, int rows, int row_stride, int q_heads, int k_heads, int head_dim,
                 const int32_t* positions, const float* inv_freq, cudaStream_t stream);

}  // namespace dlm::cuda
