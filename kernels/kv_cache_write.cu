#include "kv_cache_write.cuh"

#include "bf16_vec.cuh"
#include "cuda_check.h"
#include "launch_shape.cuh"

namespace dlm::cuda {

namespace {

// blockIdx.y walks the computed rows, blockIdx.x/threads walk kv_dim; each thread converts its
// columns of both K and V (kVec4: 4 columns, 16-byte loads and 8-byte stores).
template <bool kVec4>
__global__ void kv_cache_write_kernel(const float* __restrict__ qkv, int rows, int row_stride, int k_offset,
                                      int v_offset, int kv_dim, const int32_t* __restrict__ positions,
                                      __nv_bfloat16* __restrict__ k_cache, __nv_bfloat16* __restrict__ v_cache) {
    const int work = kVec4 ? kv_dim / 4 : kv_dim;
    for (int r = blockIdx.y; r < rows; r += gridDim.y) {
        const float* k_src = qkv + static_cast<std::size_t>(r) * row_stride + k_offset;
        const float* v_src = qkv + static_cast<std::size_t>(r) * row_stride + v_offset;
        const std::size_t dst = static_cast<std::size_t>(positions[r]) * kv_dim;
        __nv_bfloat16* k_dst = k_cache + dst;
        __nv_bfloat16* v_dst = v_cache + dst;
        for (int c = blockIdx.x * blockDim.x + threadIdx.x; c < work; c += gridDim.x * blockDim.x) {
            if constexpr (kVec4) {
                const float4 k = reinterpret_cast<const float4*>(k_src)[c];
                const float4 v = reinterpret_cast<const float4*>(v_src)[c];
                store_bf16x4(k_dst + 4 * c, k.x, k.y, k.z, k.w);
                store_bf16x4(v_dst + 4 * c, v.x, v.y, v.z, v.w);
            } else {
                k_dst[c] = __float2bfloat16(k_src[c]);
                v_dst[c] = __float2bfloat16(v_src[c]);
            }
        }
    }
}

}  // namespace

void launch_kv_cache_write(const float* qkv, int rows, int row_stride, int k_offset, int v_offset, int kv_dim,
                           const int32_t* positions, __nv_bfloat16* k_cache, __nv_bfloat16* v_cache,
                           cudaStream_t stream) {
    if (rows <= 0 || kv_dim <= 0) return;
    const bool vec4 = kv_dim % 4 == 0 && row_stride % 4 == 0 && k_offset % 4 == 0 && v_offset % 4 == 0 &&
                      is_aligned(qkv, 16) && is_aligned(k_cache, 8) && is_aligned(v_cache, 8);
    const int work = vec4 ? kv_dim / 4 : kv_dim;
    const int threads = warp_multiple_threads(work);
    const dim3 grid(capped_blocks(work, threads), std::min(rows, kMaxGridY));
    if (vec4)
        kv_cache_write_kernel<true><<<grid, threads, 0, stream>>>(qkv, rows, row_stride, k_offset, v_offset, kv_dim,
                                                                   positions, k_cache, v_cache);
    else
        kv_cache_write_kernel<false><<<grid, threads, 0, stream>>>(qkv, rows, row_stride, k_offset, v_offset, kv_dim,
                                                                    positions, k_cache, v_cache);
    check_launch("kv_cache_write");
}

}  // namespace dlm::cuda
