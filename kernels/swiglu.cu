#include "swiglu.cuh"

#include "bf16_vec.cuh"
#include "cuda_check.h"
#include "launch_shape.cuh"

namespace dlm::cuda {

namespace {

// silu(g) · u as the CPU reference writes it: g / (1 + exp(−g)) · u, with the accurate expf.
__device__ __forceinline__ float silu_times(float g, float u) { return g / (1.0f + expf(-g)) * u; }

// blockIdx.y walks rows, blockIdx.x/threads walk the ff columns; kVec4 reads 4 gate and 4 up
// values with two 16-byte loads and writes 4 bf16 with one 8-byte store.
template <bool kVec4>
__global__ void swiglu_kernel(const float* __restrict__ gate_up, int rows, int ff, __nv_bfloat16* __restrict__ out) {
    const int work = kVec4 ? ff / 4 : ff;
    for (int r = blockIdx.y; r < rows; r += gridDim.y) {
        const float* gate = gate_up + static_cast<std::size_t>(r) * 2 * ff;
        const float* up = gate + ff;
        __nv_bfloat16* o = out + static_cast<std::size_t>(r) * ff;
        for (int c = blockIdx.x * blockDim.x + threadIdx.x; c < work; c += gridDim.x * blockDim.x) {
            if constexpr (kVec4) {
                const float4 g = reinterpret_cast<const float4*>(gate)[c];
                const float4 u = reinterpret_cast<const float4*>(up)[c];
                store_bf16x4(o + 4 * c, silu_times(g.x, u.x), silu_times(g.y, u.y), silu_times(g.z, u.z),
                             silu_times(g.w, u.w));
            } else {
                o[c] = __float2bfloat16(silu_times(gate[c], up[c]));
            }
        }
    }
}

}  // namespace

void launch_swiglu(const float* gate_up, int rows, int ff, __nv_bfloat16* out, cudaStream_t stream) {
    if (rows <= 0 || ff <= 0) return;
    // ff % 4 == 0 keeps every row's gate, up and output 16/16/8-byte aligned.
    const bool vec4 = ff % 4 == 0 && is_aligned(gate_up, 16) && is_aligned(out, 8);
    const int work = vec4 ? ff / 4 : ff;
    const int threads = warp_multiple_threads(work);
    const dim3 grid(capped_blocks(work, threads), std::min(rows, kMaxGridY));
    if (vec4)
        swiglu_kernel<true><<<grid, threads, 0, stream>>>(gate_up, rows, ff, out);
    else
        swiglu_kernel<false><<<grid, threads, 0, stream>>>(gate_up, rows, ff, out);
    check_launch("swiglu");
}

}  // namespace dlm::cuda
