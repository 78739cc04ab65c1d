#include "compute/cpu/cpu_weights.h"

#include <cblas.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "util/error.h"

namespace dlm::cpu {

namespace {

bool usable_in_place(const TensorView& t) {
    return t.dtype == DType::F32 && reinterpret_cast<std::uintptr_t>(t.data) % alignof(float) == 0;
}

void check_tensor(const TensorView* t, const char* role, int64_t numel) {
    if (!t) throw Error(std::string("CPU backend: the model has no ") + role + " tensor");
    if (t->numel() != numel || t->data == nullptr)
        throw Error("CPU backend: tensor " + t->name + " (" + role + ") has " + std::to_string(t->numel()) +
                    " elements, expected " + std::to_string(numel));
    if (t->nbytes < static_cast<std::size_t>(numel) * dtype_size(t->dtype))
        throw Error("CPU backend: tensor " + t->name + " is shorter than its shape");
}

// Rows of the LM head converted per chunk when it is streamed (~64 MiB of fp32).
constexpr std::size_t kHeadChunkBytes = std::size_t(64) << 20;

}  // namespace

CpuWeights::CpuWeights(const ModelWeights& weights, std::size_t cache_bytes, ThreadPool& pool)
    : weights_(weights), pool_(pool) {
    const ModelConfig& c = weights.config;
    d_ = c.d_model;
    vocab_ = c.vocab_size;
    const int64_t d = c.d_model, qd = c.q_dim(), kvd = c.kv_dim(), ff = c.d_ff, V = c.vocab_size;
    if (static_cast<int>(weights.layers.size()) != c.n_layers)
        throw Error("CPU backend: the model binds " + std::to_string(weights.layers.size()) + " layers, config says " +
                    std::to_string(c.n_layers));
    check_tensor(weights.embed, "token embedding", V * d);
    check_tensor(weights.final_norm, "final norm", d);
    check_tensor(weights.lm_head, "LM head", V * d);

    std::size_t budget = cache_bytes;
    layers_.resize(weights.layers.size());
    for (std::size_t l = 0; l < layers_.size(); ++l) {
        const LayerWeights& w = weights.layers[l];
        Layer& L = layers_[l];
        const std::string n = "layer " + std::to_string(l) + " ";
        check_tensor(w.attn_norm, (n + "attention norm").c_str(), d);
        check_tensor(w.ffn_norm, (n + "FFN norm").c_str(), d);
        check_tensor(w.wq, (n + "query projection").c_str(), qd * d);
        check_tensor(w.wk, (n + "key projection").c_str(), kvd * d);
        check_tensor(w.wv, (n + "value projection").c_str(), kvd * d);
        check_tensor(w.wo, (n + "output projection").c_str(), d * qd);
        check_tensor(w.w_gate, (n + "FFN gate").c_str(), ff * d);
        check_tensor(w.w_up, (n + "FFN up").c_str(), ff * d);
        check_tensor(w.w_down, (n + "FFN down").c_str(), d * ff);
        if (c.qkv_bias) {
            check_tensor(w.bq, (n + "query bias").c_str(), qd);
            check_tensor(w.bk, (n + "key bias").c_str(), kvd);
            check_tensor(w.bv, (n + "value bias").c_str(), kvd);
        }
        // Norms and biases: tiny, always fp32. Offsets are fixed before any pointer is taken.
        const std::size_t sizes[5] = {static_cast<std::size_t>(d), static_cast<std::size_t>(d),
                                      c.qkv_bias ? static_cast<std::size_t>(qd) : 0,
                                      c.qkv_bias ? static_cast<std::size_t>(kvd) : 0,
                                      c.qkv_bias ? static_cast<std::size_t>(kvd) : 0};
        L.small.resize(sizes[0] + sizes[1] + sizes[2] + sizes[3] + sizes[4]);
        std::size_t off = 0;
        L.f32.attn_norm = prepare_small(w.attn_norm, L.small, off);
        off += sizes[0];
        L.f32.ffn_norm = prepare_small(w.ffn_norm, L.small, off);
        off += sizes[1];
        if (c.qkv_bias) {
            L.f32.bq = prepare_small(w.bq, L.small, off);
            off += sizes[2];
            L.f32.bk = prepare_small(w.bk, L.small, off);
            off += sizes[3];
            L.f32.bv = prepare_small(w.bv, L.small, off);
        }
        L.wq.view = w.wq;
        L.wk.view = w.wk;
        L.wv.view = w.wv;
        L.wo.view = w.wo;
        L.w_gate.view = w.w_gate;
        L.w_up.view = w.w_up;
        L.w_down.view = w.w_down;
        for (Matrix* m : {&L.wq, &L.wk, &L.wv, &L.wo, &L.w_gate, &L.w_up, &L.w_down}) {
            plan(*m, budget);
            if (!m->ready) {
                L.streamed = true;
                ++streamed_;
            }
        }
        L.f32.wq = L.wq.ready;
        L.f32.wk = L.wk.ready;
        L.f32.wv = L.wv.ready;
        L.f32.wo = L.wo.ready;
        L.f32.w_gate = L.w_gate.ready;
        L.f32.w_up = L.w_up.ready;
        L.f32.w_down = L.w_down.ready;
    }
    head_.view = weights.lm_head;
    plan(head_, budget);
    if (!head_.ready) ++streamed_;
    final_norm_storage_.resize(static_cast<std::size_t>(d));
    final_norm_ = prepare_small(weights.final_norm, final_norm_storage_, 0);
    if (streamed_ > 0) scratch_.resize(7);
}

const float* CpuWeights::prepare_small(const TensorView* t, std::vector<float>& storage, std::size_t offset) {
    if (usable_in_place(*t)) return reinterpret_cast<const float*>(t->data);
    convert_to_f32(t->dtype, t->data, storage.data() + offset, static_cast<std::size_t>(t->numel()));
    return storage.data() + offset;
}

void CpuWeights::plan(Matrix& m, std::size_t& budget) {
    if (usable_in_place(*m.view)) {
        m.ready = reinterpret_cast<const float*>(m.view->data);
        return;
    }
    const std::size_t bytes = static_cast<std::size_t>(m.view->numel()) * sizeof(float);
    if (bytes > budget) return;  // streamed
    try {
        m.owned.resize(static_cast<std::size_t>(m.view->numel()));
    } catch (const std::bad_alloc&) {
        return;  // no memory for a resident copy: stream it instead
    }
    convert(*m.view, 0, m.owned.size(), m.owned.data());
    m.ready = m.owned.data();
    budget -= bytes;
    resident_bytes_ += bytes;
}

void CpuWeights::convert(const TensorView& t, std::size_t first, std::size_t count, float* dst) {
    const std::size_t esize = dtype_size(t.dtype);
    pool_.parallel_for(count, std::size_t(1) << 16, [&](int, std::size_t b, std::size_t e) {
        convert_to_f32(t.dtype, t.data + (first + b) * esize, dst + b, e - b);
    });
}

const float* CpuWeights::materialize(const Matrix& m, std::vector<float>& scratch) {
    if (m.ready) return m.ready;
    scratch.resize(static_cast<std::size_t>(m.view->numel()));
    convert(*m.view, 0, scratch.size(), scratch.data());
    return scratch.data();
}

const LayerF32& CpuWeights::layer(int l) {
    Layer& L = layers_.at(static_cast<std::size_t>(l));
    if (!L.streamed) return L.f32;
    streamed_view_ = L.f32;
    streamed_view_.wq = materialize(L.wq, scratch_[0]);
    streamed_view_.wk = materialize(L.wk, scratch_[1]);
    streamed_view_.wv = materialize(L.wv, scratch_[2]);
    streamed_view_.wo = materialize(L.wo, scratch_[3]);
    streamed_view_.w_gate = materialize(L.w_gate, scratch_[4]);
    streamed_view_.w_up = materialize(L.w_up, scratch_[5]);
    streamed_view_.w_down = materialize(L.w_down, scratch_[6]);
    return streamed_view_;
}

void CpuWeights::embed_row(int32_t token, float* out) const {
    const TensorView& e = *weights_.embed;
    const std::size_t esize = dtype_size(e.dtype);
    const std::byte* src = e.data + static_cast<std::size_t>(token) * d_ * esize;
    if (e.dtype == DType::F32) std::memcpy(out, src, static_cast<std::size_t>(d_) * sizeof(float));
    else convert_to_f32(e.dtype, src, out, static_cast<std::size_t>(d_));
}

void CpuWeights::lm_head(const float* x, int m, float* logits) {
    if (m == 0) return;
    if (head_.ready) {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, m, vocab_, d_, 1.0f, x, d_, head_.ready, d_, 0.0f, logits,
                    vocab_);
        return;
    }
    const std::size_t chunk_rows = std::max<std::size_t>(1, kHeadChunkBytes / (sizeof(float) * d_));
    head_scratch_.resize(std::min<std::size_t>(chunk_rows, vocab_) * d_);
    for (std::size_t v0 = 0; v0 < static_cast<std::size_t>(vocab_); v0 += chunk_rows) {
        const std::size_t rows = std::min<std::size_t>(chunk_rows, vocab_ - v0);
        convert(*head_.view, v0 * d_, rows * d_, head_scratch_.data());
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, m, static_cast<int>(rows), d_, 1.0f, x, d_,
                    head_scratch_.data(), d_, 0.0f, logits + v0, vocab_);
    }
}

}  // namespace dlm::cpu
