#include "bias_add.cuh"

#include "cuda_check.h"
#include "launch_shape.cuh"

namespace dlm::cuda {

namespace {

// blockIdx.y walks rows, blockIdx.x/threads walk columns; kVec4 moves 4 columns per access.
template <bool kVec4>
__global__ void bias_add_kernel(float* __restrict__ y, int rows, int cols, int row_stride,
                                const float* __restrict__ bias) {
    const int work = kVec4 ? cols / 4 : cols;
    for (int r = blockIdx.y; r < rows; r += gridDim.y) {
        float* row = y + static_cast<std::size_t>(r) * row_stride;
        for (int c = blockIdx.x * blockDim.x + threadIdx.x; c < work; c += gridDim.x * blockDim.x) {
            if constexpr (kVec4) {
                float4 v = reinterpret_cast<float4*>(row)[c];
                const float4 b = reinterpret_cast<const float4*>(bias)[c];
                v.x += b.x;
                v.y += b.y;
                v.z += b.z;
                v.w += b.w;
                reinterpret_cast<float4*>(row)[c] = v;
            } else {
                row[c] += bias[c];
            }
        }
    }
}

}  // namespace

void launch_bias_add(float* y, int rows, int cols, int row_stride, const float* bias, cudaStream_t stream) {
    if (rows <= 0 || cols <= 0) return;
    const bool vec4 = cols % 4 == 0 && row_stride % 4 == 0 && is_aligned(y, 16) && is_aligned(bias, 16);
    const int work = vec4 ? cols / 4 : cols;
    const int threads = warp_multiple_threads(work);
    const dim3 grid(capped_blocks(work, threads), std::min(rows, kMaxGridY));
    if (vec4)
        bias_add_kernel<true><<<grid, threads, 0, stream>>>(y, rows, cols, row_stride, bias);
    else
        bias_add_kernel<false><<<grid, threads, 0, stream>>>(y, rows, cols, row_stride, bias);
    check_launch("bias_add");
}

}  // namespace dlm::cuda
