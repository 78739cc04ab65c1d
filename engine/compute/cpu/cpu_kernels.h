#pragma once
// The fp32 building blocks of the CPU transformer forward.
// Everything here works on row-major [rows, features] matrices and treats every row on its own.
// Only the sgemm wrappers can make a row's last bits depend on the other rows: OpenBLAS's register
// tiling makes them depend on where a row sits in the tile (~1 ulp between calls with other M).
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace dlm::cpu {

// C[m, n] (row stride ldc) = alpha · A[m, k] (stride lda) · B[n, k]ᵀ (stride ldb): attention
// scores Q_h · K_hᵀ straight out of the interleaved head layout.
void gemm_abt(const float* a, int lda, const float* b, int ldb, float* c, int ldc, int m, int n, int k, float alpha);
// C[m, n] (stride ldc) = A[m, k] (stride lda) · B[k, n] (stride ldb): attention output P · V_h.
void gemm_ab(const float* a, int lda, const float* b, int ldb, float* c, int ldc, int m, int n, int k);

// Softmax of one row of `count` scores in place; returns their log-sum-exp.
float softmax_in_place(float* scores, int count);

// y[j, :] += b for every row.
void add_bias(float* y, int m, int n, const float* b);

// out = x · rsqrt(mean(x²) + eps) · weight, per row; the mean is accumulated in double.
void rms_norm(const float* x, int m, int d, const float* weight, double eps, float* out);

// g = silu(g) · u, elementwise (SwiGLU).
void swiglu(float* g, const float* u, std::size_t n);

// Rotary embedding tables, split-half ("rotate_half") convention: element i of a head pairs with
// element i + hd/2, frequency inv_freq[i] = θ^(-2i/hd). Angles are rounded to fp32 the way
// PyTorch computes them (float position × float inv_freq), then cos/sin are taken in double.
class RopeTable {
public:
    RopeTable(int head_dim, double theta);
    void ensure(int positions);  // grows the table to cover 0..positions-1
    // Rotates `heads` heads of every row of x [m, heads * hd] in place; row j sits at positions[j].
    void apply(float* x, int m, int heads, const int32_t* positions) const;
    int head_dim() const { return hd_; }

private:
    int hd_;
    std::vector<float> inv_freq_;
    std::vector<float> cos_, sin_;  // [position][hd/2]
    int positions_ = 0;
};

// Fixed-order dot product (8 partial sums, then a fixed reduction).
float dot(const float* a, const float* b, int n);

// One query head against the first `count` key columns: s_j = q·k_j · scale, softmax,
// out = Σ softmax_j v_j, with k_j = k_rows[j] + offset (v likewise), except that column
// `self_col` (if >= 0) uses self_k / self_v instead. Returns the log-sum-exp of the scaled
// scores. `scores` is scratch of >= count floats.
struct KeyColumns {
    const float* const* k_rows;
    const float* const* v_rows;
    int offset = 0;
    int self_col = -1;
    const float* self_k = nullptr;
    const float* self_v = nullptr;
};
float attend_head(const float* q, const KeyColumns& keys, int count, int hd, float scale, float* scores, float* out);

}  // namespace dlm::cpu
