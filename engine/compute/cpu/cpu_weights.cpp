#include "compute/cpu/cpu_weights.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>

#include "compute/cpu/panel_gemm.h"
#include "util/error.h"
#include "util/machine_memory.h"

namespace dlm::cpu {

namespace {

bool usable_in_place(const TensorView& t) {
    return t.dtype == DType::F32 && reinterpret_cast<std::uintptr_t>(t.data) % alignof(float) == 0;
}

void check_tensor(const TensorView* t, const std::string& role, int64_t numel) {
    if (!t) throw Error("CPU backend: the model has no " + role + " tensor");
    if (t->numel() != numel || t->data == nullptr)
        throw Error("CPU backend: tensor " + t->name + " (" + role + ") has " + std::to_string(t->numel()) +
                    " elements, expected " + std::to_string(numel));
    if (t->nbytes < static_cast<std::size_t>(numel) * dtype_size(t->dtype))
        throw Error("CPU backend: tensor " + t->name + " is shorter than its shape");
}

std::string gigabytes(double bytes) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f GB", bytes / 1e9);
    return buf;
}


}  // namespace

CpuWeights::CpuWeights(const ModelWeights& weights, std::size_t fp32_copy_budget, double available, ThreadPool& pool)
    : weights_(weights), pool_(pool) {
    const ModelConfig& c = weights.config;
    d_ = c.d_model;
    const int64_t d = c.d_model, qd = c.q_dim(), kvd = c.kv_dim(), ff = c.d_ff, V = c.vocab_size;
    if (static_cast<int>(weights.layers.size()) != c.n_layers)
        throw Error("CPU backend: the model binds " + std::to_string(weights.layers.size()) + " layers, config says " +
                    std::to_string(c.n_layers));
    check_tensor(weights.embed, "token embedding", V * d);
    check_tensor(weights.final_norm, "final norm", d);
    check_tensor(weights.lm_head, "LM head", V * d);

    // Every matrix with its shape [rows, cols], checked before anything is converted.
    struct Bound {
        const TensorView* view;
        int rows, cols;
    };
    std::vector<Bound> matrices;
    for (std::size_t l = 0; l < weights.layers.size(); ++l) {
        const LayerWeights& w = weights.layers[l];
        const std::string n = "layer " + std::to_string(l) + " ";
        check_tensor(w.attn_norm, n + "attention norm", d);
        check_tensor(w.ffn_norm, n + "FFN norm", d);
        const Bound layer_matrices[7] = {{w.wq, int(qd), int(d)},     {w.wk, int(kvd), int(d)},
                                         {w.wv, int(kvd), int(d)},    {w.wo, int(d), int(qd)},
                                         {w.w_gate, int(ff), int(d)}, {w.w_up, int(ff), int(d)},
                                         {w.w_down, int(d), int(ff)}};
        const char* roles[7] = {"query projection", "key projection", "value projection", "output projection",
                                "FFN gate",         "FFN up",         "FFN down"};
        for (int i = 0; i < 7; ++i) {
            check_tensor(layer_matrices[i].view, n + roles[i], int64_t(layer_matrices[i].rows) * layer_matrices[i].cols);
            matrices.push_back(layer_matrices[i]);
        }
        if (c.qkv_bias) {
            check_tensor(w.bq, n + "query bias", qd);
            check_tensor(w.bk, n + "key bias", kvd);
            check_tensor(w.bv, n + "value bias", kvd);
        }
    }
    matrices.push_back({weights.lm_head, int(V), int(d)});

    // Pack every matrix into panels at load when the CPU has the kernels, no matrix is wider than
    // the panels stay fast for, and the packed copies of all of them fit the budget and the memory
    // (the fastest forward: no product packs its weights again; mapped fp32 pages are then no
    // longer read). Otherwise copy the BF16/F16 matrices to fp32 when those copies fit, or widen
    // them per forward.
    const int width = panel_width();
    double in_place = 0, stored = 0, as_fp32 = 0, packed = 0;
    bool packable = width > 0;
    for (const Bound& b : matrices) {
        packable = packable && b.cols <= kPanelMaxCols;
        if (width > 0) packed += double(packed_floats(b.rows, b.cols, width)) * sizeof(float);
        if (usable_in_place(*b.view)) in_place += double(b.view->nbytes);
        else {
            stored += double(b.view->nbytes);
            as_fp32 += double(b.view->numel()) * sizeof(float);
        }
    }
    const double margin = working_memory(in_place + stored);
    const bool pack =
        packable && packed <= double(fp32_copy_budget) && (available == 0 || packed + margin <= available);
    const bool convert = !pack && as_fp32 > 0 && as_fp32 <= double(fp32_copy_budget) &&
                         (available == 0 || in_place + as_fp32 + margin <= available);
    const double need = (pack ? packed : in_place + (convert ? as_fp32 : stored)) + margin;
    if (available > 0 && need > available)
        throw Error("CPU backend: the model needs " + gigabytes(need) + " of memory (" +
                    gigabytes(in_place + stored) + " of weights read on every forward, plus working memory), but only " +
                    gigabytes(available) + " of the machine's " + gigabytes(physical_memory_bytes()) +
                    " is available");

    std::size_t next = 0;
    layers_.resize(weights.layers.size());
    small_.resize(weights.layers.size() + 1);
    for (std::size_t l = 0; l < layers_.size(); ++l) {
        const LayerWeights& w = weights.layers[l];
        LayerMatrices& L = layers_[l];
        std::vector<float>& small = small_[l];
        // Norms and biases: tiny, always fp32. Offsets are fixed before any pointer is taken.
        small.resize(static_cast<std::size_t>(2 * d + (c.qkv_bias ? qd + 2 * kvd : 0)));
        L.attn_norm = prepare_small(w.attn_norm, small, 0);
        L.ffn_norm = prepare_small(w.ffn_norm, small, static_cast<std::size_t>(d));
        if (c.qkv_bias) {
            L.bq = prepare_small(w.bq, small, static_cast<std::size_t>(2 * d));
            L.bk = prepare_small(w.bk, small, static_cast<std::size_t>(2 * d + qd));
            L.bv = prepare_small(w.bv, small, static_cast<std::size_t>(2 * d + qd + kvd));
        }
        for (WeightMatrix* m : {&L.wq, &L.wk, &L.wv, &L.wo, &L.w_gate, &L.w_up, &L.w_down}) {
            const Bound& b = matrices[next++];
            *m = bind(b.view, b.rows, b.cols, pack, convert);
        }
    }
    head_ = bind(weights.lm_head, int(V), int(d), pack, convert);
    small_.back().resize(static_cast<std::size_t>(d));
    final_norm_ = prepare_small(weights.final_norm, small_.back(), 0);
}

double CpuWeights::working_memory(double weight_bytes) {
    return std::min(512.0 * 1024 * 1024, 64.0 * 1024 * 1024 + weight_bytes / 8);
}

const float* CpuWeights::prepare_small(const TensorView* t, std::vector<float>& storage, std::size_t offset) {
    if (usable_in_place(*t)) return reinterpret_cast<const float*>(t->data);
    convert_to_f32(t->dtype, t->data, storage.data() + offset, static_cast<std::size_t>(t->numel()));
    return storage.data() + offset;
}

WeightMatrix CpuWeights::bind(const TensorView* t, int rows, int cols, bool pack, bool convert) {
    WeightMatrix m;
    m.rows = rows;
    m.cols = cols;
    m.dtype = t->dtype;
    if (pack) {
        const int width = panel_width();
        std::vector<float>& panels = converted_.emplace_back(packed_floats(rows, cols, width));
        const std::size_t count = static_cast<std::size_t>((rows + width - 1) / width);
        pool_.parallel_for(count, 1, [&](int, std::size_t b, std::size_t e) {
            pack_panels(t->dtype, t->data, rows, cols, width, b, e, panels.data());
        });
        m.panels = panels.data();
        m.panel_width = width;
        converted_bytes_ += panels.size() * sizeof(float);
        return m;
    }
    if (usable_in_place(*t)) {
        m.f32 = reinterpret_cast<const float*>(t->data);
        return m;
    }
    if (!convert) {
        m.stored = t->data;
        ++widened_;
        return m;
    }
    std::vector<float>& copy = converted_.emplace_back(static_cast<std::size_t>(t->numel()));
    const std::size_t esize = dtype_size(t->dtype);
    pool_.parallel_for(copy.size(), std::size_t(1) << 16, [&](int, std::size_t b, std::size_t e) {
        convert_to_f32(t->dtype, t->data + b * esize, copy.data() + b, e - b);
    });
    m.f32 = copy.data();
    converted_bytes_ += copy.size() * sizeof(float);
    return m;
}

void CpuWeights::embed_row(int32_t token, float* out) const {
    const TensorView& e = *weights_.embed;
    const std::size_t esize = dtype_size(e.dtype);
    const std::byte* src = e.data + static_cast<std::size_t>(token) * d_ * esize;
    if (e.dtype == DType::F32) std::memcpy(out, src, static_cast<std::size_t>(d_) * sizeof(float));
    else convert_to_f32(e.dtype, src, out, static_cast<std::size_t>(d_));
}

}  // namespace dlm::cpu
