#include "rms_norm.cuh"

#include "bf16_vec.cuh"
#include "cuda_check.h"
#include "launch_shape.cuh"

namespace dlm::cuda {

namespace {

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(0xffffffffu, v, offset);
    return v;
}

// One block per row (grid-stride over rows); blockDim is a multiple of 32. Pass 1 sums x² into
// per-thread fp32 partials, reduced by warp shuffles and then across warps; pass 2 re-reads the
// row (an L1/L2 hit) and writes x · inv · w as bf16. With kVec4 each thread moves 4 columns.
template <bool kVec4>
__global__ void rms_norm_kernel(const float* __restrict__ x, int rows, int d, const float* __restrict__ weight,
                                float eps, __nv_bfloat16* __restrict__ out) {
    __shared__ float warp_sums[32];
    __shared__ float row_inv;
    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    const int warps = blockDim.x >> 5;
    const int work = kVec4 ? d / 4 : d;

    for (int r = blockIdx.x; r < rows; r += gridDim.x) {
        const float* row = x + static_cast<std::size_t>(r) * d;
        __nv_bfloat16* o = out + static_cast<std::size_t>(r) * d;

        float ss = 0.0f;
        for (int c = threadIdx.x; c < work; c += blockDim.x) {
            if constexpr (kVec4) {
                const float4 v = reinterpret_cast<const float4*>(row)[c];
                ss += v.x * v.x + v.y * v.y + v.z * v.z + v.w * v.w;
            } else {
                const float v = row[c];
                ss += v * v;
            }
        }
        ss = warp_sum(ss);
        if (lane == 0) warp_sums[warp] = ss;
        __syncthreads();
        if (warp == 0) {
            float total = lane < warps ? warp_sums[lane] : 0.0f;
            total = warp_sum(total);
            // One double rsqrt per row, as the CPU reference rounds it: costs nothing, removes
            // rsqrtf's 2-ulp error from every element of the row.
            if (lane == 0) row_inv = static_cast<float>(1.0 / sqrt(static_cast<double>(total) / d + eps));
        }
        __syncthreads();
        const float inv = row_inv;

        for (int c = threadIdx.x; c < work; c += blockDim.x) {
            if constexpr (kVec4) {
                const float4 v = reinterpret_cast<const float4*>(row)[c];
                const float4 w = reinterpret_cast<const float4*>(weight)[c];
                // Normalise in fp32, then weight (LLaDA / HF order), then round to bf16.
                store_bf16x4(o + 4 * c, (v.x * inv) * w.x, (v.y * inv) * w.y, (v.z * inv) * w.z, (v.w * inv) * w.w);
            } else {
                o[c] = __float2bfloat16((row[c] * inv) * weight[c]);
            }
        }
        // warp_sums and row_inv are rewritten for the block's next row.
        __syncthreads();
    }
}

}  // namespace

void launch_rms_norm(const float* x, int rows, int d, const float* weight, float eps, __nv_bfloat16* out,
                     cudaStream_t stream) {
    if (rows <= 0 || d <= 0) return;
    const bool vec4 = d % 4 == 0 && is_aligned(x, 16) && is_aligned(weight, 16) && is_aligned(out, 8);
    const int work = vec4 ? d / 4 : d;
    const int threads = warp_multiple_threads(work, 256);
    const int blocks = std::min(rows, kMaxGridX);
    if (vec4)
        rms_norm_kernel<true><<<blocks, threads, 0, stream>>>(x, rows, d, weight, eps, out);
    else
        rms_norm_kernel<false><<<blocks, threads, 0, stream>>>(x, rows, d, weight, eps, out);
    check_launch("rms_norm");
}

}  // namespace dlm::cuda
