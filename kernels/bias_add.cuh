#pragma once
// y[r, c] += bias[c] for the first `cols` columns of every row (Qwen2's q/k/v biases).
#include <cuda_runtime.h>

namespace dlm::cuda {

void launch_bias_add(float* y, int rows, int cols, int row_stride, const float* bias, cudaStream_t stream);

}  // namespace dlm::cuda
