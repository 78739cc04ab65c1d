#pragma once
// Packed gather of selected rows (e.g. the LM-head rows out of the computed rows), so the head
// GEMM runs over a dense [head_rows][d] block and no skipped row is ever multiplied.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>

namespace dlm::cuda {

// out[i, :] = in[index[i], :] for i < rows; both with `cols` columns and row stride `cols`.
void launch_gather_rows(const __nv_bfloat16* in, const int32_t* index, int rows, int cols, __nv_bfloat16* out,
                        cudaStream_t stream);
void launch_gather_rows(const float* in, const int32_t* index, int rows, int cols, float* out, cudaStream_t stream);

}  // namespace dlm::cuda
