// The token-sparse fp32 CPU forward (design.md §3): per layer, only the requested rows are
// normalised, projected, attended and fed through the FFN; their K/V go into the item's cache,
// and the attention reads every other column from that cache (or from the override source).
#include "compute/cpu/cpu_backend.h"


#include <algorithm>
#include <cmath>
#include <exception>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "compute/attention_layout.h"
#include "compute/cover_correction.h"
#include "compute/cpu/cpu_kernels.h"
#include "compute/cpu/cpu_kv_cache.h"
#include "compute/cpu/cpu_posterior_store.h"
#include "compute/cpu/cpu_thread_pool.h"
#include "compute/cpu/cpu_weights.h"
#include "compute/forward_validation.h"
#include "util/error.h"
#include "util/machine_memory.h"

namespace dlm {

namespace {

using cpu::CpuKvCache;
using cpu::CpuPosteriorStore;

int resolve_threads(int requested, const ModelConfig& config) {
    return requested > 0 ? requested : cpu_default_threads(config);
}

// A validated batch item with its caches as the CPU backend's own type.
struct ItemPlan : ForwardItemPlan {
    CpuKvCache* cache = nullptr;
    const CpuKvCache* override_source = nullptr;
    std::vector<int32_t> rope_positions;  // [m] RoPE position of each row; empty = the row's column
    int max_position = 0;                 // largest RoPE position the item uses
    ShadowBlock shadow;
};

// WINO's shadow block: the scores of the columns query `q` may not see become -inf before the
// softmax (ShadowBlock::visible), so they get exactly zero weight.
void hide_shadow_columns(float* scores, int q, const ShadowBlock& s) {
    if (s.contains(q)) scores[s.twin_of(q)] = -INFINITY;
    else std::fill(scores + s.first, scores + s.first + s.count, -INFINITY);
}

class CpuBackend final : public Backend {
public:
    CpuBackend(const ModelWeights& weights, CpuBackendOptions options)
        : weights_(weights),
          threads_(resolve_threads(options.threads, weights.config)),
          pool_(threads_),
          cpu_weights_(weights_, options.weight_cache_bytes, available_memory_bytes(), pool_),
          gemm_(pool_),
          rope_(weights_.config.head_dim, weights_.config.rope_theta) {
        const ModelConfig& c = weights_.config;
        if (c.d_model <= 0 || c.n_layers <= 0 || c.n_heads <= 0 || c.n_kv_heads <= 0 || c.head_dim <= 0 ||
            c.d_ff <= 0 || c.vocab_size <= 0)
            throw Error("CPU backend: the model config has non-positive dimensions");
        if (c.n_heads % c.n_kv_heads != 0)
            throw Error("CPU backend: " + std::to_string(c.n_heads) + " query heads cannot share " +
                        std::to_string(c.n_kv_heads) + " K/V heads evenly");
        if (c.head_dim % 2 != 0) throw Error("CPU backend: RoPE needs an even head dimension, got " + std::to_string(c.head_dim));
        scores_.resize(static_cast<std::size_t>(pool_.size()));
    }

    std::string name() const override { return "cpu"; }
    bool supports_attention_layout() const override { return true; }
    const ModelConfig& config() const override { return weights_.config; }

    std::unique_ptr<KvCache> make_cache(int positions) override {
        const ModelConfig& c = weights_.config;
        return std::make_unique<CpuKvCache>(c.n_layers, positions, c.kv_dim());
    }
    std::unique_ptr<PosteriorStore> make_posterior_store(int positions) override {
        return std::make_unique<CpuPosteriorStore>(positions);
    }

    void forward(std::span<const ForwardItem> batch) override;
    std::vector<RowStats> row_stats(const RowStatsRequest& req) override;

    std::vector<float> logits(int item, int head_row_index) const override {
        const Output& o = output(item);
        if (head_row_index < 0 || head_row_index >= o.head_rows)
            throw Error("logits: head row index " + std::to_string(head_row_index) + " outside 0.." +
                        std::to_string(o.head_rows - 1) + " of item " + std::to_string(item));
        const std::size_t V = static_cast<std::size_t>(weights_.config.vocab_size);
        auto first = o.logits.begin() + static_cast<std::ptrdiff_t>(head_row_index * V);
        return std::vector<float>(first, first + static_cast<std::ptrdiff_t>(V));
    }
    std::vector<float> attention_lse(int item) const override { return output(item).lse; }
    std::vector<float> last_layer_attention(int item) const override { return output(item).attention; }
    uint64_t rows_computed() const override { return rows_computed_; }

private:
    struct Output {
        int head_rows = 0;
        std::vector<float> logits;  // [head_rows][V]
        std::vector<float> lse;     // [layer][row][head] when requested
        std::vector<float> attention;  // [row][n], last layer, head-averaged, when requested
    };

    const Output& output(int item) const {
        if (item < 0 || item >= static_cast<int>(batch_size_))
            throw Error("item " + std::to_string(item) + " is not in the last forward's batch of " +
                        std::to_string(batch_size_));
        return outputs_[static_cast<std::size_t>(item)];
    }

    std::vector<ItemPlan> validate(std::span<const ForwardItem> batch) const;
    void run_layer(int layer, const cpu::LayerMatrices& w, ItemPlan& plan, std::vector<float>& x, Output& out);
    void attention(int layer, ItemPlan& plan, Output& out);
    void seed_attention_rows(int layer, const ItemPlan& plan, const float* K, Output& out);

    ModelWeights weights_;  // a copy: keeps the mapped store alive as long as the backend
    int threads_;
    cpu::ThreadPool pool_;
    cpu::CpuWeights cpu_weights_;
    cpu::WeightGemm gemm_;
    cpu::RopeTable rope_;

    std::size_t batch_size_ = 0;
    std::vector<Output> outputs_;
    uint64_t rows_computed_ = 0;

    // Scratch, grown on demand and reused across calls.
    std::vector<std::vector<float>> x_;  // residual stream per item [m][d]
    std::vector<float> h_, q_, k_, v_, att_, gate_, up_, head_in_;
    std::vector<const float*> kcol_, vcol_;
    std::vector<float> kpatch_, vpatch_;           // override-patched K/V
    std::vector<std::vector<float>> probs_;        // per thread: a head's attention probabilities
    std::vector<std::vector<float>> head_lse_;     // per thread: per row, the head's log-sum-exp
    std::vector<std::vector<float>> scores_;  // per pool thread
    std::vector<std::vector<float>> stats_posterior_, stats_cfg_;  // per pool thread
};

std::vector<ItemPlan> CpuBackend::validate(std::span<const ForwardItem> batch) const {
    const ModelConfig& c = weights_.config;
    auto fit = [&c](const KvCache& cache) {
        const auto* cpu_cache = dynamic_cast<const CpuKvCache*>(&cache);
        if (!cpu_cache) return CacheFit::OtherBackend;
        if (cpu_cache->layers() != c.n_layers || cpu_cache->kv_dim() != c.kv_dim()) return CacheFit::OtherModel;
        return CacheFit::Ok;
    };
    std::vector<ForwardItemPlan> checked = validate_forward(batch, c, "CPU", fit);
    std::vector<ItemPlan> plans(checked.size());
    for (std::size_t b = 0; b < checked.size(); ++b) {
        ItemPlan& p = plans[b];
        static_cast<ForwardItemPlan&>(p) = std::move(checked[b]);
        p.cache = static_cast<CpuKvCache*>(batch[b].cache);
        if (p.has_override) p.override_source = static_cast<const CpuKvCache*>(batch[b].kv_override->source);
        const ForwardItem& it = batch[b];
        p.max_position = check_attention_layout(it, c, "forward item " + std::to_string(b) + ": ");
        p.shadow = it.shadow;
        if (!it.position_ids.empty()) {
            p.rope_positions.resize(it.rows.size());
            for (std::size_t i = 0; i < it.rows.size(); ++i) p.rope_positions[i] = it.position_ids[it.rows[i]];
        }
    }
    return plans;
}

void CpuBackend::forward(std::span<const ForwardItem> batch) {
    const ModelConfig& c = weights_.config;
    std::vector<ItemPlan> plans = validate(batch);  // throws before anything is touched

    const std::size_t d = static_cast<std::size_t>(c.d_model);
    int max_n = 0, max_m = 0, max_position = 0;
    for (const ItemPlan& p : plans) {
        max_n = std::max(max_n, p.n);
        max_m = std::max(max_m, p.m);
        max_position = std::max(max_position, p.max_position);
    }
    rope_.ensure(std::max(max_n, max_position + 1));
    batch_size_ = batch.size();
    if (outputs_.size() < batch.size()) outputs_.resize(batch.size());
    if (x_.size() < batch.size()) x_.resize(batch.size());
    const std::size_t mm = static_cast<std::size_t>(max_m);
    h_.resize(mm * d);
    q_.resize(mm * c.q_dim());
    k_.resize(mm * c.kv_dim());
    v_.resize(mm * c.kv_dim());
    att_.resize(mm * c.q_dim());
    gate_.resize(mm * c.d_ff);
    up_.resize(mm * c.d_ff);
    kcol_.resize(static_cast<std::size_t>(max_n));
    vcol_.resize(static_cast<std::size_t>(max_n));
    for (auto& s : scores_) s.resize(static_cast<std::size_t>(max_n));

    for (std::size_t b = 0; b < plans.size(); ++b) {
        const ItemPlan& p = plans[b];
        Output& out = outputs_[b];
        out.head_rows = 0;
        out.lse.assign(p.item->want_lse ? static_cast<std::size_t>(c.n_layers) * p.m * c.n_heads : 0, 0.0f);
        out.attention.assign(p.item->want_attention ? static_cast<std::size_t>(p.m) * p.n : 0, 0.0f);
        std::vector<float>& x = x_[b];
        x.resize(static_cast<std::size_t>(p.m) * d);
        for (int i = 0; i < p.m; ++i)
            cpu_weights_.embed_row(p.item->tokens[p.item->rows[i]], x.data() + static_cast<std::size_t>(i) * d);
    }

    for (const ItemPlan& p : plans) p.cache->mark(p.item->rows, false);
    for (int l = 0; l < c.n_layers; ++l) {
        const cpu::LayerMatrices& w = cpu_weights_.layer(l);
        for (std::size_t b = 0; b < plans.size(); ++b)
            if (plans[b].m > 0) run_layer(l, w, plans[b], x_[b], outputs_[b]);
    }

    for (std::size_t b = 0; b < plans.size(); ++b) {
        const ItemPlan& p = plans[b];
        Output& out = outputs_[b];
        p.cache->mark(p.item->rows);
        rows_computed_ += static_cast<uint64_t>(p.m);
        const int mh = static_cast<int>(p.head_index.size());
        out.head_rows = mh;
        out.logits.resize(static_cast<std::size_t>(mh) * c.vocab_size);
        if (mh == 0) continue;
        head_in_.resize(static_cast<std::size_t>(mh) * d);
        for (int i = 0; i < mh; ++i)
            std::copy_n(x_[b].data() + static_cast<std::size_t>(p.head_index[i]) * d, d,
                        head_in_.data() + static_cast<std::size_t>(i) * d);
        cpu::rms_norm(head_in_.data(), mh, c.d_model, cpu_weights_.final_norm(), c.rms_eps, head_in_.data());
        gemm_.xwt(head_in_.data(), mh, cpu_weights_.lm_head(), out.logits.data(), false);
    }
}

void CpuBackend::run_layer(int l, const cpu::LayerMatrices& w, ItemPlan& p, std::vector<float>& x, Output& out) {
    const ModelConfig& c = weights_.config;
    const int m = p.m, d = c.d_model, qd = c.q_dim(), kvd = c.kv_dim(), ff = c.d_ff;
    const int32_t* rows = p.item->rows.data();
    const int32_t* rope_positions = p.rope_positions.empty() ? rows : p.rope_positions.data();
    auto rows_parallel = [&](const std::function<void(std::size_t, std::size_t)>& fn) {
        pool_.parallel_for(static_cast<std::size_t>(m), 4, [&](int, std::size_t b, std::size_t e) { fn(b, e); });
    };

    // Attention block.
    rows_parallel([&](std::size_t b, std::size_t e) {
        cpu::rms_norm(x.data() + b * d, static_cast<int>(e - b), d, w.attn_norm, c.rms_eps, h_.data() + b * d);
    });
    gemm_.xwt(h_.data(), m, w.wq, q_.data(), false);
    gemm_.xwt(h_.data(), m, w.wk, k_.data(), false);
    gemm_.xwt(h_.data(), m, w.wv, v_.data(), false);
    rows_parallel([&](std::size_t b, std::size_t e) {
        const int n = static_cast<int>(e - b);
        if (w.bq) cpu::add_bias(q_.data() + b * qd, n, qd, w.bq);
        if (w.bk) cpu::add_bias(k_.data() + b * kvd, n, kvd, w.bk);
        if (w.bv) cpu::add_bias(v_.data() + b * kvd, n, kvd, w.bv);
        rope_.apply(q_.data() + b * qd, n, c.n_heads, rope_positions + b);
        rope_.apply(k_.data() + b * kvd, n, c.n_kv_heads, rope_positions + b);
        for (std::size_t i = b; i < e; ++i) {
            std::copy_n(k_.data() + i * kvd, kvd, p.cache->k(l, rows[i]));
            std::copy_n(v_.data() + i * kvd, kvd, p.cache->v(l, rows[i]));
        }
    });
    attention(l, p, out);
    gemm_.xwt(att_.data(), m, w.wo, x.data(), true);

    // FFN block.
    rows_parallel([&](std::size_t b, std::size_t e) {
        cpu::rms_norm(x.data() + b * d, static_cast<int>(e - b), d, w.ffn_norm, c.rms_eps, h_.data() + b * d);
    });
    gemm_.xwt(h_.data(), m, w.w_gate, gate_.data(), false);
    gemm_.xwt(h_.data(), m, w.w_up, up_.data(), false);
    rows_parallel([&](std::size_t b, std::size_t e) {
        cpu::swiglu(gate_.data() + b * ff, up_.data() + b * ff, (e - b) * static_cast<std::size_t>(ff));
    });
    gemm_.xwt(gate_.data(), m, w.w_down, x.data(), true);
}

void CpuBackend::attention(int l, ItemPlan& p, Output& out) {
    const ModelConfig& c = weights_.config;
    const int m = p.m, n = p.n, H = c.n_heads, hd = c.head_dim, qd = c.q_dim(), kvd = c.kv_dim();
    const int group = c.n_heads / c.n_kv_heads;
    const float scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(hd)));
    const int32_t* rows = p.item->rows.data();
    float* lse = out.lse.empty() ? nullptr : out.lse.data() + static_cast<std::size_t>(l) * m * H;

    // Keys/values of this layer as one [n, kvd] matrix: the item's cache (which already holds
    // this forward's rows), with the override columns patched in from the snapshot.
    const float* K = p.cache->k(l, 0);
    const float* Vv = p.cache->v(l, 0);
    if (p.override_source) {
        kpatch_.assign(K, K + static_cast<std::size_t>(n) * kvd);
        vpatch_.assign(Vv, Vv + static_cast<std::size_t>(n) * kvd);
        for (int j = 0; j < n; ++j) {
            if (!p.overridden[j]) continue;
            std::copy_n(p.override_source->k(l, j), kvd, kpatch_.data() + static_cast<std::size_t>(j) * kvd);
            std::copy_n(p.override_source->v(l, j), kvd, vpatch_.data() + static_cast<std::size_t>(j) * kvd);
        }
        K = kpatch_.data();
        Vv = vpatch_.data();
    }
    // Causal rows never look past the last computed row.
    const int cols = c.bidirectional ? n : rows[m - 1] + 1;
    const bool keep_attention = !out.attention.empty() && l == c.n_layers - 1;
    // Rows verifying a seed, whose one fresh column the closed-form correction restores after
    // the shared override pass.
    std::vector<int> corrected;
    if (p.override_source && p.closed_form)
        for (int i = 0; i < m; ++i)
            if (p.fresh_column(rows[i]) >= 0) corrected.push_back(i);
    // One head: scores, softmax and output in the thread's own buffers. A head's values never
    // depend on the thread that computes it.
    auto run_head = [&](int h, std::vector<float>& probs, std::vector<float>& head_lse) {
        const int g = h / group;
        probs.resize(static_cast<std::size_t>(m) * cols);
        head_lse.resize(static_cast<std::size_t>(m));
        cpu::gemm_abt(q_.data() + h * hd, qd, K + g * hd, kvd, probs.data(), cols, m, cols, hd, scale);
        for (int i = 0; i < m; ++i) {
            float* row = probs.data() + static_cast<std::size_t>(i) * cols;
            if (p.shadow.active()) hide_shadow_columns(row, rows[i], p.shadow);
            const int visible = c.bidirectional ? cols : rows[i] + 1;
            const float s = cpu::softmax_in_place(row, visible);
            std::fill(row + visible, row + cols, 0.0f);
            head_lse[static_cast<std::size_t>(i)] = s;
            if (lse) lse[static_cast<std::size_t>(i) * H + h] = s;
        }
        cpu::gemm_ab(probs.data(), cols, Vv + g * hd, kvd, att_.data() + h * hd, qd, m, hd, cols);
        // the COVER paper, Appendix B: o_i = (o_ovr - a·v'_j + a·e^delta·v_j) / r, per verifying
        // row i and its seed column j.
        for (int i : corrected) {
            const int col = p.fresh_column(rows[i]);
            const float* qi = q_.data() + static_cast<std::size_t>(i) * qd + h * hd;
            const float* k_fresh = p.cache->k(l, col) + g * hd;
            const float* v_fresh = p.cache->v(l, col) + g * hd;
            const float* k_ovr = K + static_cast<std::size_t>(col) * kvd + g * hd;
            const float* v_ovr = Vv + static_cast<std::size_t>(col) * kvd + g * hd;
            float* o = att_.data() + static_cast<std::size_t>(i) * qd + h * hd;
            DiagonalCorrectionInput in;
            in.out_override = std::span<const float>(o, static_cast<std::size_t>(hd));
            in.lse_override = head_lse[static_cast<std::size_t>(i)];
            in.score_override = static_cast<double>(cpu::dot(qi, k_ovr, hd)) * scale;
            in.score_fresh = static_cast<double>(cpu::dot(qi, k_fresh, hd)) * scale;
            in.v_override = std::span<const float>(v_ovr, static_cast<std::size_t>(hd));
            in.v_fresh = std::span<const float>(v_fresh, static_cast<std::size_t>(hd));
            const DiagonalCorrection r = apply_diagonal_correction(in, std::span<float>(o, static_cast<std::size_t>(hd)));
            if (lse) lse[static_cast<std::size_t>(i) * H + h] = static_cast<float>(r.lse);
        }
    };
    probs_.resize(static_cast<std::size_t>(pool_.size()));
    head_lse_.resize(static_cast<std::size_t>(pool_.size()));
    if (keep_attention) {
        // The head-averaged map sums the heads in order, so they run one after another.
        const float inv_h = 1.0f / static_cast<float>(H);
        for (int h = 0; h < H; ++h) {
            run_head(h, probs_[0], head_lse_[0]);
            for (int i = 0; i < m; ++i) {
                const float* src = probs_[0].data() + static_cast<std::size_t>(i) * cols;
                float* dst = out.attention.data() + static_cast<std::size_t>(i) * n;
                for (int j = 0; j < cols; ++j) dst[j] += src[j] * inv_h;
            }
        }
    } else {
        pool_.parallel_for(static_cast<std::size_t>(H), 1, [&](int thread, std::size_t b, std::size_t e) {
            for (std::size_t h = b; h < e; ++h)
                run_head(static_cast<int>(h), probs_[static_cast<std::size_t>(thread)],
                         head_lse_[static_cast<std::size_t>(thread)]);
        });
    }
    if (keep_attention && p.override_source && p.self_sees_fresh) seed_attention_rows(l, p, K, out);

    // COVER's leave-one-out view: a computed row verifying a seed sees that seed's fresh K/V.
    // Only those few rows are redone, column by column.
    if (!p.override_source || !p.self_sees_fresh || p.closed_form) return;
    std::vector<int> seeds;
    for (int i = 0; i < m; ++i)
        if (p.fresh_column(rows[i]) >= 0) seeds.push_back(i);
    if (seeds.empty()) return;
    for (int j = 0; j < n; ++j) {
        kcol_[j] = K + static_cast<std::size_t>(j) * kvd;
        vcol_[j] = Vv + static_cast<std::size_t>(j) * kvd;
    }
    pool_.parallel_for(seeds.size() * H, 1, [&](int thread, std::size_t b, std::size_t e) {
        float* scores = scores_[static_cast<std::size_t>(thread)].data();
        for (std::size_t t = b; t < e; ++t) {
            const int i = seeds[t / H], h = static_cast<int>(t % H);
            const int pos = rows[i], col = p.fresh_column(pos), g = h / group;
            cpu::KeyColumns keys{kcol_.data(), vcol_.data(), g * hd};
            keys.self_col = col;
            keys.self_k = p.cache->k(l, col) + g * hd;
            keys.self_v = p.cache->v(l, col) + g * hd;
            const int count = c.bidirectional ? n : pos + 1;
            const float s = cpu::attend_head(q_.data() + static_cast<std::size_t>(i) * qd + h * hd, keys, count, hd,
                                             scale, scores, att_.data() + static_cast<std::size_t>(i) * qd + h * hd);
            if (lse) lse[static_cast<std::size_t>(i) * H + h] = s;
        }
    });
}

// The head-averaged attention rows of the rows verifying a seed, recomputed with the seed's
// column swapped for its fresh K/V (those few rows only; the override pass left their override view).
void CpuBackend::seed_attention_rows(int l, const ItemPlan& p, const float* K, Output& out) {
    const ModelConfig& c = weights_.config;
    const int m = p.m, n = p.n, H = c.n_heads, hd = c.head_dim, qd = c.q_dim(), kvd = c.kv_dim();
    const int group = c.n_heads / c.n_kv_heads;
    const double scale = 1.0 / std::sqrt(static_cast<double>(hd));
    const int32_t* rows = p.item->rows.data();
    std::vector<double> s(static_cast<std::size_t>(n));
    for (int i = 0; i < m; ++i) {
        const int pos = rows[i], col = p.fresh_column(pos);
        if (col < 0) continue;
        float* dst = out.attention.data() + static_cast<std::size_t>(i) * n;
        std::fill(dst, dst + n, 0.0f);
        const int count = c.bidirectional ? n : pos + 1;
        for (int h = 0; h < H; ++h) {
            const int g = h / group;
            const float* qi = q_.data() + static_cast<std::size_t>(i) * qd + h * hd;
            double mx = -INFINITY;
            for (int j = 0; j < count; ++j) {
                const float* kj = j == col ? p.cache->k(l, col) + g * hd : K + static_cast<std::size_t>(j) * kvd + g * hd;
                s[j] = static_cast<double>(cpu::dot(qi, kj, hd)) * scale;
                mx = std::max(mx, s[j]);
            }
            double sum = 0.0;
            for (int j = 0; j < count; ++j) sum += (s[j] = std::exp(s[j] - mx));
            for (int j = 0; j < count; ++j) dst[j] += static_cast<float>(s[j] / sum / H);
        }
    }
}

std::vector<RowStats> CpuBackend::row_stats(const RowStatsRequest& req) {
    const Output& out = output(req.item);
    const std::size_t V = static_cast<std::size_t>(weights_.config.vocab_size);
    CpuPosteriorStore* store = nullptr;
    if (req.posteriors) {
        store = dynamic_cast<CpuPosteriorStore*>(req.posteriors);
        if (!store) throw Error("row statistics: the posterior store was not made by the CPU backend");
    }
    validate_row_stats_request(req, [this](int item) { return output(item).head_rows; },
                               store ? store->positions() : 0);
    const Output* uncond = req.cfg_uncond_item >= 0 ? &output(req.cfg_uncond_item) : nullptr;

    const std::size_t n = req.positions.size();
    std::vector<RowStats> result(n);
    stats_posterior_.resize(static_cast<std::size_t>(pool_.size()));
    stats_cfg_.resize(static_cast<std::size_t>(pool_.size()));
    std::mutex error_mutex;
    std::exception_ptr error;
    const bool keep = store && req.update_posteriors;
    pool_.parallel_for(n, 1, [&](int thread, std::size_t b, std::size_t e) {
        try {
            std::vector<float>& post = stats_posterior_[static_cast<std::size_t>(thread)];
            std::vector<float>& cfg = stats_cfg_[static_cast<std::size_t>(thread)];
            for (std::size_t r = b; r < e; ++r) {
                const std::size_t idx = static_cast<std::size_t>(req.head_row_index[r]);
                const int32_t pos = req.positions[r];
                std::span<const float> row(out.logits.data() + idx * V, V);
                if (uncond) {
                    cfg.resize(V);
                    const float* u = uncond->logits.data() + idx * V;
                    const double s1 = req.cfg_scale + 1.0;
                    for (std::size_t i = 0; i < V; ++i)
                        cfg[i] = static_cast<float>(u[i] + s1 * (static_cast<double>(row[i]) - u[i]));
                    row = cfg;
                }
                std::span<const float> prev = store && kl_wanted(req, pos) ? store->get(pos) : std::span<const float>{};
                if (keep) post.resize(V);
                result[r] = compute_row_stats(row, pos, req, prev, keep ? std::span<float>(post) : std::span<float>{});
                if (keep) store->put(pos, post);
            }
        } catch (...) {
            std::lock_guard<std::mutex> lock(error_mutex);
            if (!error) error = std::current_exception();
        }
    });
    if (error) std::rethrow_exception(error);
    return result;
}

}  // namespace

int cpu_default_threads(const ModelConfig& config) {
    constexpr long long kSmallModelParams = 20'000'000;
    if (parameter_count(config) < kSmallModelParams) return 1;
    const unsigned hw = std::thread::hardware_concurrency();
    return hw > 0 ? static_cast<int>(hw) : 1;
}

std::unique_ptr<Backend> make_cpu_backend(const ModelWeights& weights, CpuBackendOptions options) {
    return std::make_unique<CpuBackend>(weights, options);
}

}  // namespace dlm
