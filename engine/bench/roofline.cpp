#include "bench/roofline.h"

#include <algorithm>

#include "decode/flops.h"

namespace dlm {

StepCost step_cost(const ModelConfig& c, int n, int rows, int head_rows, int batch, double wb, double kvb) {
    const double d = c.d_model, q = c.q_dim(), kv = c.kv_dim(), ff = c.d_ff, V = c.vocab_size, L = c.n_layers;
    StepCost s;
    s.flops = batch * (paper_flops(c, n, rows) + lm_head_flops(c, head_rows));
    // Per layer: Q, K, V, O projections, gate/up/down, two norm vectors.
    const double layer = d * q + 2 * d * kv + q * d + 3 * d * ff + 2 * d;
    // The LM head reads all V x d (tied or not); the embedding only the rows gathered.
    s.weight_bytes = wb * (L * layer + d + V * d + double(batch) * rows * d);
    s.kv_bytes = kvb * batch * L * 2.0 * kv * (double(n) + rows);
    return s;
}

double roofline_seconds(const StepCost& cost, const RooflineRates& r) {
    if (r.gemm_flops_per_s <= 0 || r.copy_bytes_per_s <= 0) return 0.0;
    return std::max(cost.flops / r.gemm_flops_per_s, cost.bytes() / r.copy_bytes_per_s);
}

}  // namespace dlm
