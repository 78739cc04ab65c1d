#pragma once
// Algorithmic FLOPs in the SureLock style (design.md §6). GEMMs only:
// Q/K/V/O projections, QK^T and AV, SwiGLU FFN. The LM head is counted separately so that
// "paper FLOPs" stay comparable with the paper's tables.
#include "model/model_config.h"

namespace dlm {

// One step, one sequence of n positions of which m rows are computed, all layers:
// L * (4*H*m*n*d_h + 2*m*d*(H*d_h) + 2*m*(H*d_h)*d + 4*m*d*H_kv*d_h + 6*m*d*d_ff).
// m = n is the dense baseline. LLaDA-8B at n = m = 320: 4.5205e12.
double paper_flops(const ModelConfig& c, int n, int m);
// The dense baseline of a step over n positions.
inline double paper_flops_dense(const ModelConfig& c, int n) { return paper_flops(c, n, n); }
// LM head over `rows` rows: 2 * rows * d * V.
double lm_head_flops(const ModelConfig& c, int rows);

}  // namespace dlm
