#pragma once
// Packed scatter of the computed rows' K and V (fp32, after RoPE) into one layer of the bf16
// K/V cache at their canvas positions; rows that were not computed keep their cached K/V.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>

namespace dlm::cuda {

// qkv: fp32 [rows][row_stride]; K at columns [k_offset, k_offset + kv_dim), V at [v_offset, ...).
// k_cache / v_cache: bf16 [cache positions][kv_dim] of this layer; positions: device [rows].
void launch_kv_cache_write(const float* qkv, int rows, int row_stride, int k_offset, int v_offset, int kv_dim,
                           const int32_t* positions, __nv_bfloat16* k_cache, __nv_bfloat16* v_cache,
                           cudaStream_t stream);

}  // namespace dlm::cuda
