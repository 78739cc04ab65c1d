#pragma once
// Packed gather of the computed rows' embeddings: x[i, :] = float(table[tokens[i], :]).
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>

namespace dlm::cuda {

// table: bf16 [vocab][d]; tokens: device [rows] ids (validated on the host); x: fp32 [rows][d].
void launch_embedding_gather(const __nv_bfloat16* table, const int32_t* tokens, int rows, int d, float* x,
                             cudaStream_t stream);

}  // namespace dlm::cuda
