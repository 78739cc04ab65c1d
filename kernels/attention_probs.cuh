#pragma once
// The last layer's attention probabilities averaged over heads, for COVER's seed score
// (Backend::last_layer_attention): probs[r][j] = mean_h exp(q_h·k_j·scale - lse[r][h]), with the
// same column sources as launch_attention (so a self-seeing override row reports its
// leave-one-out view) and the same visibility: a column hidden from a row (causal, shadow block)
// gets probability 0. With `causal`, args.n may exceed the attention's column count (probs keeps
// the canvas width): columns after the last row position are written as 0 and never read. Run after launch_attention (and after the diagonal correction, whose lse it
// must be given), only when a caller asked for it.
#include <cuda_runtime.h>

#include "attention.cuh"

namespace dlm::cuda {

// args.out is not touched; lse: [m][n_heads] (the final, corrected lse); probs: fp32 [m][n].
// After the closed-form correction pass args with self_sees_fresh = true (the view that lse now
// describes), or the seed rows will not sum to 1. Scores use q rounded to bf16, as the attention does.
void launch_attention_probs(const AttentionArgs& args, const float* lse, float* probs, cudaStream_t stream);

}  // namespace dlm::cuda
