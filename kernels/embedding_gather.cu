#include "embedding_gather.cuh"

#include "bf16_vec.cuh"
#include "cuda_check.h"
#include "launch_shape.cuh"

namespace dlm::cuda {

namespace {

// blockIdx.y walks rows, blockIdx.x/threads walk the row's columns. With kVec8 each thread moves
// 8 bf16 (one 16-byte load) into 8 floats (two 16-byte stores).
template <bool kVec8>
__global__ void embedding_gather_kernel(const __nv_bfloat16* __restrict__ table, const int32_t* __restrict__ tokens,
                                        int rows, int d, float* __restrict__ x) {
    const int work = kVec8 ? d / 8 : d;
    for (int r = blockIdx.y; r < rows; r += gridDim.y) {
        const __nv_bfloat16* src = table + static_cast<std::size_t>(tokens[r]) * d;
        float* dst = x + static_cast<std::size_t>(r) * d;
        for (int c = blockIdx.x * blockDim.x + threadIdx.x; c < work; c += gridDim.x * blockDim.x) {
            if constexpr (kVec8) {
                float v[8];
                load_bf16x8(src + 8 * c, v);
                float4* out = reinterpret_cast<float4*>(dst) + 2 * c;
                out[0] = make_float4(v[0], v[1], v[2], v[3]);
                out[1] = make_float4(v[4], v[5], v[6], v[7]);
            } else {
                dst[c] = __bfloat162float(src[c]);
            }
        }
    }
}

}  // namespace

void launch_embedding_gather(const __nv_bfloat16* table, const int32_t* tokens, int rows, int d, float* x,
                             cudaStream_t stream) {
    if (rows <= 0 || d <= 0) return;
    // Rows of a 16-byte-aligned table start 16-byte aligned only when d is a multiple of 8.
    const bool vec8 = d % 8 == 0 && is_aligned(table, 16) && is_aligned(x, 16);
    const int work = vec8 ? d / 8 : d;
    const int threads = warp_multiple_threads(work);
    const dim3 grid(capped_blocks(work, threads), std::min(rows, kMaxGridY));
    if (vec8)
        embedding_gather_kernel<true><<<grid, threads, 0, stream>>>(table, tokens, rows, d, x);
    else
        embedding_gather_kernel<false><<<grid, threads, 0, stream>>>(table, tokens, rows, d, x);
    check_launch("embedding_gather");
}

}  // namespace dlm::cuda
