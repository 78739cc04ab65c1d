#include "philox.cuh"

#include "cuda_check.h"
#include "launch_shape.cuh"

namespace dlm::cuda {

uint64_t philox_key(uint64_t seed, uint64_t stream) {
    // CounterRng(seed, stream): key_ = mix64(seed ^ mix64(stream)).
    return philox_detail::mix64(seed ^ philox_detail::mix64(stream));
}

double philox_uniform_host(uint64_t key, uint64_t step, uint64_t position, uint64_t draw) {
    return philox_uniform(key, step, position, draw);
}

namespace {

__global__ void philox_fill_kernel(uint64_t key, uint64_t step, uint64_t position, uint64_t first_draw, int count,
                                   double* out) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += gridDim.x * blockDim.x)
        out[i] = philox_uniform(key, step, position, first_draw + static_cast<uint64_t>(i));
}

}  // namespace

void launch_philox_fill(uint64_t key, uint64_t step, uint64_t position, uint64_t first_draw, int count, double* out,
                        cudaStream_t stream) {
    if (count <= 0) return;
    constexpr int kThreads = 256;
    philox_fill_kernel<<<capped_blocks(count, kThreads), kThreads, 0, stream>>>(key, step, position, first_draw, count, out);
    check_launch("philox_fill");
}

}  // namespace dlm::cuda
