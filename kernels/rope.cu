#include "rope.cuh"

#include "cuda_check.h"
#include "launch_shape.cuh"

namespace dlm::cuda {

namespace {

// out_a = a·cos − b·sin, out_b = b·cos + a·sin with every product rounded on its own (no FMA
// contraction), as the CPU RopeTable::apply computes it, so the two agree to the cos/sin bits.
__device__ __forceinline__ void rotate(float& a, float& b, float c, float s) {
    const float na = __fsub_rn(__fmul_rn(a, c), __fmul_rn(b, s));
    const float nb = __fadd_rn(__fmul_rn(b, c), __fmul_rn(a, s));
    a = na;
    b = nb;
}

// One block per row (grid-stride over rows). The block first builds the row's cos/sin for the
// hd/2 frequencies in shared memory (fp32 angle, double cos/sin, rounded to fp32), then rotates
// every (head, i) pair of the Q heads and the K heads that follow them. With kVec4 a thread
// rotates 4 consecutive pairs using float4 accesses.
template <bool kVec4>
__global__ void rope_kernel(float* __restrict__ qkv, int rows, int row_stride, int heads, int head_dim,
                            const int32_t* __restrict__ positions, const float* __restrict__ inv_freq) {
    extern __shared__ float4 rope_table_storage[];  // float4 for 16-byte alignment
    const int half = head_dim / 2;
    float* cos_t = reinterpret_cast<float*>(rope_table_storage);
    float* sin_t = cos_t + half;
    const int groups = kVec4 ? half / 4 : half;  // per head
    const int pairs = heads * groups;

    for (int r = blockIdx.x; r < rows; r += gridDim.x) {
        const float pos = static_cast<float>(positions[r]);
        for (int i = threadIdx.x; i < half; i += blockDim.x) {
            const float angle = __fmul_rn(pos, inv_freq[i]);  // rounded to fp32, as PyTorch does
            double s, c;
            sincos(static_cast<double>(angle), &s, &c);
            cos_t[i] = static_cast<float>(c);
            sin_t[i] = static_cast<float>(s);
        }
        __syncthreads();

        float* row = qkv + static_cast<std::size_t>(r) * row_stride;
        for (int p = threadIdx.x; p < pairs; p += blockDim.x) {
            const int h = p / groups;
            const int i = (p - h * groups) * (kVec4 ? 4 : 1);
            float* lo = row + static_cast<std::size_t>(h) * head_dim + i;
            float* hi = lo + half;
            if constexpr (kVec4) {
                float4 a = *reinterpret_cast<const float4*>(lo);
                float4 b = *reinterpret_cast<const float4*>(hi);
                const float4 c = *reinterpret_cast<const float4*>(cos_t + i);
                const float4 s = *reinterpret_cast<const float4*>(sin_t + i);
                rotate(a.x, b.x, c.x, s.x);
                rotate(a.y, b.y, c.y, s.y);
                rotate(a.z, b.z, c.z, s.z);
                rotate(a.w, b.w, c.w, s.w);
                *reinterpret_cast<float4*>(lo) = a;
                *reinterpret_cast<float4*>(hi) = b;
            } else {
                float a = *lo, b = *hi;
                rotate(a, b, cos_t[i], sin_t[i]);
                *lo = a;
                *hi = b;
            }
        }
        // The table is rebuilt for the block's next row.
        __syncthreads();
    }
}

}  // namespace

void launch_rope(float* qkv, int rows, int row_stride, int q_heads, int k_heads, int head_dim,
                 const int32_t* positions, const float* inv_freq, cudaStream_t stream) {
    const int heads = q_heads + k_heads;  // K heads start right after the Q heads
    const int half = head_dim / 2;
    if (rows <= 0 || heads <= 0 || half <= 0) return;
    // Every head (and both its halves) starts 16-byte aligned only when these are multiples of 4.
    const bool vec4 = half % 4 == 0 && head_dim % 4 == 0 && row_stride % 4 == 0 && is_aligned(qkv, 16);
    const long long pairs = static_cast<long long>(heads) * (vec4 ? half / 4 : half);
    const int threads = warp_multiple_threads(std::max<long long>(pairs, half), 256);
    const int blocks = std::min(rows, kMaxGridX);
    const std::size_t shared = 2 * static_cast<std::size_t>(half) * sizeof(float);
    if (vec4)
        rope_kernel<true><<<blocks, threads, shared, stream>>>(qkv, rows, row_stride, heads, head_dim, positions,
                                                               inv_freq);
    else
        rope_kernel<false><<<blocks, threads, shared, stream>>>(qkv, rows, row_stride, heads, head_dim, positions,
                                                                inv_freq);
    check_launch("rope");
}

}  // namespace dlm::cuda
