#include "compute/cpu/cpu_kernels.h"

#include <cblas.h>

#include <algorithm>
#include <cmath>

namespace dlm::cpu {

void gemm_abt(const float* a, int lda, const float* b, int ldb, float* c, int ldc, int m, int n, int k, float alpha) {
    if (m == 0 || n == 0) return;
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, m, n, k, alpha, a, lda, b, ldb, 0.0f, c, ldc);
}

void gemm_ab(const float* a, int lda, const float* b, int ldb, float* c, int ldc, int m, int n, int k) {
    if (m == 0 || n == 0) return;
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, a, lda, b, ldb, 0.0f, c, ldc);
}

float softmax_in_place(float* s, int count) {
    float mx = -INFINITY;
    for (int j = 0; j < count; ++j) mx = std::max(mx, s[j]);
    double sum = 0.0;
    for (int j = 0; j < count; ++j) {
        s[j] = std::exp(s[j] - mx);
        sum += s[j];
    }
    const float inv = static_cast<float>(1.0 / sum);
    for (int j = 0; j < count; ++j) s[j] *= inv;
    return static_cast<float>(mx + std::log(sum));
}

void add_bias(float* y, int m, int n, const float* b) {
    for (int j = 0; j < m; ++j) {
        float* row = y + static_cast<std::size_t>(j) * n;
        for (int i = 0; i < n; ++i) row[i] += b[i];
    }
}

void rms_norm(const float* x, int m, int d, const float* weight, double eps, float* out) {
    for (int j = 0; j < m; ++j) {
        const float* row = x + static_cast<std::size_t>(j) * d;
        float* o = out + static_cast<std::size_t>(j) * d;
        double ss = 0.0;
        for (int i = 0; i < d; ++i) ss += static_cast<double>(row[i]) * row[i];
        const float inv = static_cast<float>(1.0 / std::sqrt(ss / d + eps));
        // LLaDA / HF: normalise in fp32, then multiply by the weight.
        for (int i = 0; i < d; ++i) o[i] = (row[i] * inv) * weight[i];
    }
}

void swiglu(float* g, const float* u, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) {
        const float a = g[i];
        g[i] = a / (1.0f + std::exp(-a)) * u[i];
    }
}

RopeTable::RopeTable(int head_dim, double theta) : hd_(head_dim), inv_freq_(static_cast<std::size_t>(head_dim / 2)) {
    for (int i = 0; i < hd_ / 2; ++i)
        inv_freq_[i] = static_cast<float>(1.0 / std::pow(theta, (2.0 * i) / hd_));
}

void RopeTable::ensure(int positions) {
    if (positions <= positions_) return;
    const int half = hd_ / 2;
    cos_.resize(static_cast<std::size_t>(positions) * half);
    sin_.resize(static_cast<std::size_t>(positions) * half);
    for (int p = positions_; p < positions; ++p) {
        for (int i = 0; i < half; ++i) {
            const float angle = static_cast<float>(p) * inv_freq_[i];
            cos_[static_cast<std::size_t>(p) * half + i] = static_cast<float>(std::cos(static_cast<double>(angle)));
            sin_[static_cast<std::size_t>(p) * half + i] = static_cast<float>(std::sin(static_cast<double>(angle)));
        }
    }
    positions_ = positions;
}

void RopeTable::apply(float* x, int m, int heads, const int32_t* positions) const {
    const int half = hd_ / 2;
    for (int j = 0; j < m; ++j) {
        const float* c = cos_.data() + static_cast<std::size_t>(positions[j]) * half;
        const float* s = sin_.data() + static_cast<std::size_t>(positions[j]) * half;
        for (int h = 0; h < heads; ++h) {
            float* v = x + (static_cast<std::size_t>(j) * heads + h) * hd_;
            for (int i = 0; i < half; ++i) {
                const float a = v[i], b = v[i + half];
                // x·cos + rotate_half(x)·sin, rotate_half(x) = [-x2, x1]
                v[i] = a * c[i] - b * s[i];
                v[i + half] = b * c[i] + a * s[i];
            }
        }
    }
}

float dot(const float* a, const float* b, int n) {
    float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    int i = 0;
    for (; i + 8 <= n; i += 8)
        for (int l = 0; l < 8; ++l) acc[l] += a[i + l] * b[i + l];
    for (; i < n; ++i) acc[i & 7] += a[i] * b[i];
    return ((acc[0] + acc[4]) + (acc[1] + acc[5])) + ((acc[2] + acc[6]) + (acc[3] + acc[7]));
}

float attend_head(const float* q, const KeyColumns& keys, int count, int hd, float scale, float* scores, float* out) {
    float mx = -INFINITY;
    for (int j = 0; j < count; ++j) {
        const float* k = j == keys.self_col ? keys.self_k : keys.k_rows[j] + keys.offset;
        scores[j] = dot(q, k, hd) * scale;
        mx = std::max(mx, scores[j]);
    }
    double sum = 0.0;
    for (int j = 0; j < count; ++j) {
        scores[j] = std::exp(scores[j] - mx);
        sum += scores[j];
    }
    const float inv = static_cast<float>(1.0 / sum);
    std::fill(out, out + hd, 0.0f);
    for (int j = 0; j < count; ++j) {
        const float p = scores[j] * inv;
        const float* v = j == keys.self_col ? keys.self_v : keys.v_rows[j] + keys.offset;
        for (int i = 0; i < hd; ++i) out[i] += p * v[i];
    }
    return static_cast<float>(mx + std::log(sum));
}

}  // namespace dlm::cpu
