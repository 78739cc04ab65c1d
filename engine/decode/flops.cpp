#include "decode/flops.h"

namespace dlm {

double paper_flops(const ModelConfig& c, int n, int m) {
    // Doubles throughout: an 8B model at N = 2048 overflows 64-bit integers in no term, but the
    // products of ints would overflow 32 bits long before that.
    const double N = n, M = m, d = c.d_model, H = c.n_heads, Hkv = c.n_kv_heads, dh = c.head_dim,
                 dff = c.d_ff, L = c.n_layers;
    const double attention = 4.0 * H * M * N * dh;          // QK^T and AV
    const double q_proj = 2.0 * M * d * (H * dh);
    const double o_proj = 2.0 * M * (H * dh) * d;
    const double kv_proj = 4.0 * M * d * Hkv * dh;
    const double ffn = 6.0 * M * d * dff;                   // SwiGLU gate, up, down
    return L * (attention + q_proj + o_proj + kv_proj + ffn);
}

double lm_head_flops(const ModelConfig& c, int rows) {
    return 2.0 * double(rows) * double(c.d_model) * double(c.vocab_size);
}

}  // namespace dlm
