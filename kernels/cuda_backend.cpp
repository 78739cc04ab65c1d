// The bf16 CUDA forward (design.md §3): the same token-sparse semantics as the CPU
// backend (compute/cpu_backend.cpp, the reference), with the rows of every batch item packed
// into one block so that the row-wise work (embedding, norms, the Q|K|V, output and FFN GEMMs,
// bias, RoPE, SwiGLU) runs once per layer over all items, and only what reads an item's own
// cache (K/V scatter, attention, COVER's correction) runs per item. Everything is queued on one
// stream; the host waits only where it needs data (statistics, downloads).
#include "cuda_backend.h"

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "attention.cuh"
#include "attention_probs.cuh"
#include "bias_add.cuh"
#include "compute/attention_layout.h"
#include "compute/forward_validation.h"
#include "cover_correction.cuh"
#include "cublas_gemm.h"
#include "cuda_check.h"
#include "cuda_kv_cache.h"
#include "cuda_posterior_store.h"
#include "cuda_row_stats.h"
#include "cuda_stream.h"
#include "cuda_weights.h"
#include "device_buffer.h"
#include "embedding_gather.cuh"
#include "gather_rows.cuh"
#include "kv_cache_write.cuh"
#include "rms_norm.cuh"
#include "rope.cuh"
#include "swiglu.cuh"
#include "upload_pack.h"
#include "util/error.h"

namespace dlm {

namespace {

using cuda::CudaKvCache;
using cuda::CudaPosteriorStore;
using cuda::DeviceBuffer;

// Picks the device and checks it can run the bf16 kernels; throws a readable dlm::Error otherwise.
void select_device(int device) {
    int count = 0;
    const cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess) {
        cudaGetLastError();
        throw Error(std::string("CUDA backend: no usable CUDA device (") + cudaGetErrorString(err) + ")");
    }
    if (count == 0) throw Error("CUDA backend: no CUDA device present");
    if (device < 0 || device >= count)
        throw Error("CUDA backend: device " + std::to_string(device) + " does not exist (this machine has " +
                    std::to_string(count) + " CUDA device" + (count == 1 ? "" : "s") + ")");
    cudaDeviceProp prop{};
    cuda::check(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties");
    if (prop.major < 8)
        throw Error(std::string("CUDA backend: ") + prop.name + " has compute capability " + std::to_string(prop.major) +
                    "." + std::to_string(prop.minor) + "; the bf16 kernels need 8.0 (Ampere) or newer");
}

void check_config(const ModelConfig& c) {
    if (c.d_model <= 0 || c.n_layers <= 0 || c.n_heads <= 0 || c.n_kv_heads <= 0 || c.head_dim <= 0 || c.d_ff <= 0 ||
        c.vocab_size <= 0)
        throw Error("CUDA backend: the model config has non-positive dimensions");
    if (c.n_heads % c.n_kv_heads != 0)
        throw Error("CUDA backend: " + std::to_string(c.n_heads) + " query heads cannot share " +
                    std::to_string(c.n_kv_heads) + " K/V heads evenly");
    if (c.head_dim % 2 != 0)
        throw Error("CUDA backend: RoPE needs an even head dimension, got " + std::to_string(c.head_dim));
    if (c.head_dim > 256)
        throw Error("CUDA backend: the attention kernel supports head dimensions up to 256, got " +
                    std::to_string(c.head_dim));
}

// One item of the last forward: where its rows and outputs sit in the packed device buffers.
struct ItemRun {
    const ForwardItem* item = nullptr;
    CudaKvCache* cache = nullptr;
    const CudaKvCache* override_source = nullptr;
    bool self_sees_fresh = true;
    int verifier_offset = 0;        // KvOverride::verifier_offset
    bool correct_diagonal = false;  // COVER's closed form: override pass, then the seed rows' correction
    int n = 0, m = 0;
    int columns = 0;              // columns attention reads: n, or for causal rows up to the last row
    ShadowBlock shadow;           // WINO's shadow block (hidden columns), or none
    std::size_t row_offset = 0;   // first packed row
    int head_rows = 0;
    std::size_t head_offset = 0;  // first logits row
    bool want_lse = false, want_attention = false;
    float* lse = nullptr;          // [layers][m][heads] when want_lse, else [m][heads] reused per layer, or null
    float* probs = nullptr;        // [m][n] when want_attention
    std::vector<int32_t> seeds;    // rows (indices into item rows) the diagonal correction restores
    std::size_t at_overridden = 0, at_seeds = 0;  // offsets in the upload pack
};

class CudaBackend final : public Backend {
public:
    CudaBackend(const ModelWeights& weights, CudaBackendOptions options) : config_(weights.config) {
        check_config(config_);
        select_device(options.device);
        stream_ = std::make_shared<cuda::CudaStream>(options.device);
        weights_ = std::make_unique<cuda::CudaWeights>(weights, *stream_);
        gemm_ = std::make_unique<cuda::CublasGemm>(stream_->get());
        pack_ = std::make_unique<cuda::UploadPack>(*stream_);
        row_stats_ = std::make_unique<cuda::CudaRowStats>(stream_);
        // RoPE frequencies exactly as the CPU RopeTable rounds them.
        const int half = config_.head_dim / 2;
        std::vector<float> inv_freq(static_cast<std::size_t>(half));
        for (int i = 0; i < half; ++i)
            inv_freq[static_cast<std::size_t>(i)] =
                static_cast<float>(1.0 / std::pow(config_.rope_theta, (2.0 * i) / config_.head_dim));
        inv_freq_.reserve(inv_freq.size(), "RoPE frequencies");
        cuda::check(cudaMemcpyAsync(inv_freq_.get(), inv_freq.data(), inv_freq.size() * sizeof(float),
                                    cudaMemcpyHostToDevice, stream_->get()),
                    "RoPE frequencies upload");
        stream_->synchronize("CUDA backend setup");
    }

    std::string name() const override { return "cuda"; }
    bool supports_attention_layout() const override { return true; }
    const ModelConfig& config() const override { return config_; }

    std::unique_ptr<KvCache> make_cache(int positions) override {
        return std::make_unique<CudaKvCache>(stream_, config_.n_layers, positions, config_.kv_dim());
    }
    std::unique_ptr<PosteriorStore> make_posterior_store(int positions) override {
        return std::make_unique<CudaPosteriorStore>(stream_, positions, config_.vocab_size);
    }

    void forward(std::span<const ForwardItem> batch) override;
    std::vector<RowStats> row_stats(const RowStatsRequest& req) override;

    std::vector<float> logits(int item, int head_row_index) const override {
        const ItemRun& it = output(item);
        if (head_row_index < 0 || head_row_index >= it.head_rows)
            throw Error("logits: head row index " + std::to_string(head_row_index) + " outside 0.." +
                        std::to_string(it.head_rows - 1) + " of item " + std::to_string(item));
        const std::size_t V = static_cast<std::size_t>(config_.vocab_size);
        return download(logits_.get() + (it.head_offset + static_cast<std::size_t>(head_row_index)) * V, V, "logits");
    }
    std::vector<float> attention_lse(int item) const override {
        const ItemRun& it = output(item);
        if (!it.want_lse) return {};
        const std::size_t count = static_cast<std::size_t>(config_.n_layers) * it.m * config_.n_heads;
        return download(it.lse, count, "attention log-sum-exp");
    }
    std::vector<float> last_layer_attention(int item) const override {
        const ItemRun& it = output(item);
        if (!it.want_attention) return {};
        return download(it.probs, static_cast<std::size_t>(it.m) * it.n, "attention probabilities");
    }
    uint64_t rows_computed() const override { return rows_computed_; }
    TransferTotals transfers() const override { return stream_->transfers(); }

private:
    const ItemRun& output(int item) const {
        if (item < 0 || item >= static_cast<int>(batch_size_))
            throw Error("item " + std::to_string(item) + " is not in the last forward's batch of " +
                        std::to_string(batch_size_));
        return runs_[static_cast<std::size_t>(item)];
    }
    std::vector<float> download(const float* src, std::size_t count, const char* what) const {
        std::vector<float> host(count);
        if (count == 0) return host;
        stream_->activate();
        stream_->copy(host.data(), src, count * sizeof(float), cudaMemcpyDeviceToHost, what);
        stream_->synchronize(what);
        return host;
    }

    std::vector<ItemRun> plan(std::span<const ForwardItem> batch);
    void run_layer(int layer);
    void attend(int layer, const ItemRun& it);

    ModelConfig config_;
    // Declared first so it is destroyed last: everything below queues work on it.
    std::shared_ptr<cuda::CudaStream> stream_;
    std::unique_ptr<cuda::CudaWeights> weights_;
    std::unique_ptr<cuda::CublasGemm> gemm_;
    std::unique_ptr<cuda::UploadPack> pack_;
    std::unique_ptr<cuda::CudaRowStats> row_stats_;
    DeviceBuffer<float> inv_freq_;

    std::size_t batch_size_ = 0;
    std::vector<ItemRun> runs_;
    uint64_t rows_computed_ = 0;
    std::size_t rows_ = 0;        // packed rows of the current forward
    std::size_t at_row_pos_ = 0;  // upload-pack offsets: canvas column of each packed row,
    std::size_t at_rope_pos_ = 0;  // its RoPE position (the same offset without position ids),
    std::size_t at_tokens_ = 0;
    std::size_t at_head_index_ = 0;

    // Scratch and outputs, grown on demand (a failed growth keeps the old allocation).
    DeviceBuffer<float> x_;          // residual stream [rows][d]
    DeviceBuffer<__nv_bfloat16> h_;  // normed rows, the GEMMs' input [rows][d]
    DeviceBuffer<float> qkv_;        // [rows][q_dim + 2 kv_dim]
    DeviceBuffer<__nv_bfloat16> att_;  // [rows][q_dim]
    DeviceBuffer<float> att_f32_;      // [rows][q_dim], fp32 attention output for COVER's correction
    DeviceBuffer<float> gate_up_;    // [rows][2 d_ff]
    DeviceBuffer<__nv_bfloat16> act_;  // [rows][d_ff]
    DeviceBuffer<float> head_x_;     // [head rows][d]
    DeviceBuffer<__nv_bfloat16> head_h_;
    DeviceBuffer<float> logits_;     // [head rows of all items][V]
    DeviceBuffer<float> lse_;        // per item, see ItemRun::lse
    DeviceBuffer<float> probs_;      // per item, see ItemRun::probs
    DeviceBuffer<float> split_;      // attention's column-split scratch (few query rows)
};

std::vector<ItemRun> CudaBackend::plan(std::span<const ForwardItem> batch) {
    const ModelConfig& c = config_;
    auto fit = [&c](const KvCache& cache) {
        const auto* cuda_cache = dynamic_cast<const CudaKvCache*>(&cache);
        if (!cuda_cache) return CacheFit::OtherBackend;
        if (cuda_cache->layers() != c.n_layers || cuda_cache->kv_dim() != c.kv_dim()) return CacheFit::OtherModel;
        return CacheFit::Ok;
    };
    std::vector<ForwardItemPlan> checked = validate_forward(batch, c, "CUDA", fit);  // throws before anything is touched
    // Explicit position ids and WINO's shadow block: the same checks and messages as the CPU backend.
    bool any_position_ids = false;
    for (std::size_t b = 0; b < batch.size(); ++b) {
        check_attention_layout(batch[b], c, "forward item " + std::to_string(b) + ": ");
        any_position_ids = any_position_ids || !batch[b].position_ids.empty();
    }

    std::vector<ItemRun> runs(checked.size());
    const std::size_t H = static_cast<std::size_t>(c.n_heads), L = static_cast<std::size_t>(c.n_layers);
    std::size_t rows = 0, head_rows = 0, lse_floats = 0, probs_floats = 0;
    std::vector<int32_t> tokens, row_pos, rope_pos, head_index;
    for (std::size_t b = 0; b < checked.size(); ++b) {
        const ForwardItemPlan& p = checked[b];
        ItemRun& it = runs[b];
        it.item = p.item;
        it.cache = static_cast<CudaKvCache*>(p.item->cache);
        if (p.has_override) it.override_source = static_cast<const CudaKvCache*>(p.item->kv_override->source);
        it.self_sees_fresh = p.self_sees_fresh;
        it.verifier_offset = p.verifier_offset;
        it.correct_diagonal = p.has_override && p.closed_form && p.self_sees_fresh;
        it.n = p.n;
        it.m = p.m;
        // Causal rows never read a column after the last computed row (nor need it cached).
        it.columns = c.bidirectional || p.m == 0 ? p.n : p.item->rows.back() + 1;
        it.shadow = p.item->shadow;
        it.row_offset = rows;
        it.head_rows = static_cast<int>(p.head_index.size());
        it.head_offset = head_rows;
        it.want_lse = p.item->want_lse;
        it.want_attention = p.item->want_attention && p.m > 0;
        for (int32_t r : p.item->rows) {
            tokens.push_back(p.item->tokens[static_cast<std::size_t>(r)]);
            row_pos.push_back(r);
            // K/V still go to canvas column r; only the rotation uses the item's position id.
            if (any_position_ids)
                rope_pos.push_back(p.item->position_ids.empty() ? r : p.item->position_ids[static_cast<std::size_t>(r)]);
        }
        for (int32_t i : p.head_index) head_index.push_back(static_cast<int32_t>(rows) + i);
        if (it.correct_diagonal)
            for (int i = 0; i < p.m; ++i)
                if (p.fresh_column(p.item->rows[static_cast<std::size_t>(i)]) >= 0) it.seeds.push_back(i);
        // lse: every layer's when asked for, else one layer's when the correction or the
        // attention probabilities need it.
        if (it.want_lse) lse_floats += L * p.m * H;
        else if (it.correct_diagonal || it.want_attention) lse_floats += static_cast<std::size_t>(p.m) * H;
        if (it.want_attention) probs_floats += static_cast<std::size_t>(p.m) * p.n;
        if (p.has_override) it.at_overridden = pack_->add(p.overridden);
        it.at_seeds = pack_->add(it.seeds);
        rows += static_cast<std::size_t>(p.m);
        head_rows += p.head_index.size();
    }
    at_tokens_ = pack_->add(tokens);
    at_row_pos_ = pack_->add(row_pos);
    at_rope_pos_ = any_position_ids ? pack_->add(rope_pos) : at_row_pos_;
    at_head_index_ = pack_->add(head_index);
    rows_ = rows;

    // Every allocation before anything is queued or any cache marked: running out of memory
    // leaves the caches and the backend as they were.
    const std::size_t d = static_cast<std::size_t>(c.d_model), qkvd = static_cast<std::size_t>(c.q_dim() + 2 * c.kv_dim()),
                      qd = static_cast<std::size_t>(c.q_dim()), ff = static_cast<std::size_t>(c.d_ff),
                      V = static_cast<std::size_t>(c.vocab_size);
    x_.reserve(rows * d, "forward residual stream");
    h_.reserve(rows * d, "forward normed rows");
    qkv_.reserve(rows * qkvd, "forward Q|K|V");
    att_.reserve(rows * qd, "forward attention output");
    const bool any_correction =
        std::any_of(runs.begin(), runs.end(), [](const ItemRun& it) { return it.correct_diagonal && !it.seeds.empty(); });
    att_f32_.reserve(any_correction ? rows * qd : 0, "attention output (fp32) for COVER's correction");
    gate_up_.reserve(rows * 2 * ff, "forward gate|up");
    act_.reserve(rows * ff, "forward SwiGLU output");
    head_x_.reserve(head_rows * d, "LM head input");
    head_h_.reserve(head_rows * d, "LM head input");
    logits_.reserve(head_rows * V, "logits");
    lse_.reserve(lse_floats, "attention log-sum-exp");
    probs_.reserve(probs_floats, "attention probabilities");
    // Items run one after the other on the stream, so one split scratch serves them all; one that
    // is too small only makes the kernel run unsplit.
    std::size_t split_floats = 0;
    for (const ItemRun& it : runs) {
        if (it.m == 0) continue;
        cuda::AttentionArgs shape;
        shape.m = it.m;
        shape.n = it.columns;
        shape.n_heads = c.n_heads;
        shape.n_kv_heads = c.n_kv_heads;
        shape.head_dim = c.head_dim;
        split_floats = std::max(split_floats, cuda::attention_split_workspace_floats(shape));
    }
    split_.reserve(split_floats, "attention split scratch");

    std::size_t lse_at = 0, probs_at = 0;
    for (ItemRun& it : runs) {
        if (it.want_lse || it.correct_diagonal || it.want_attention) {
            it.lse = lse_.get() + lse_at;
            lse_at += (it.want_lse ? L : 1) * static_cast<std::size_t>(it.m) * H;
        }
        if (it.want_attention) {
            it.probs = probs_.get() + probs_at;
            probs_at += static_cast<std::size_t>(it.m) * it.n;
        }
    }
    return runs;
}

void CudaBackend::forward(std::span<const ForwardItem> batch) {
    const ModelConfig& c = config_;
    stream_->activate();
    pack_->clear();
    // The previous forward's outputs are about to be overwritten (or, on an error, lost).
    batch_size_ = 0;
    runs_ = plan(batch);
    pack_->upload("forward metadata upload");
    const cudaStream_t s = stream_->get();

    // launch_attention_probs writes every entry (hidden columns as 0), so nothing is cleared here.
    for (const ItemRun& it : runs_) it.cache->mark(it.item->rows, false);
    const int rows = static_cast<int>(rows_);
    if (rows > 0) {
        cuda::launch_embedding_gather(weights_->embedding(), pack_->device<int32_t>(at_tokens_), rows, c.d_model,
                                      x_.get(), s);
        for (int l = 0; l < c.n_layers; ++l) run_layer(l);
    }
    int head_rows = 0;
    for (const ItemRun& it : runs_) {
        it.cache->mark(it.item->rows);
        rows_computed_ += static_cast<uint64_t>(it.m);
        head_rows += it.head_rows;
    }
    if (head_rows > 0) {
        // Only the head rows go through the final norm and the LM head.
        cuda::launch_gather_rows(x_.get(), pack_->device<int32_t>(at_head_index_), head_rows, c.d_model, head_x_.get(),
                                 s);
        cuda::launch_rms_norm(head_x_.get(), head_rows, c.d_model, weights_->final_norm(), static_cast<float>(c.rms_eps),
                              head_h_.get(), s);
        gemm_->xwt(head_h_.get(), head_rows, c.d_model, weights_->lm_head(), c.vocab_size, logits_.get(), false);
    }
    batch_size_ = batch.size();
}

void CudaBackend::run_layer(int l) {
    const ModelConfig& c = config_;
    const cuda::CudaLayerWeights& w = weights_->layer(l);
    const cudaStream_t s = stream_->get();
    const int rows = static_cast<int>(rows_), d = c.d_model, qd = c.q_dim(), kvd = c.kv_dim(), ff = c.d_ff;
    const int qkvd = qd + 2 * kvd;
    const float eps = static_cast<float>(c.rms_eps);
    const int32_t* row_pos = pack_->device<int32_t>(at_row_pos_);

    // Attention block: one GEMM for Q|K|V of every item's rows.
    cuda::launch_rms_norm(x_.get(), rows, d, w.attn_norm.get(), eps, h_.get(), s);
    gemm_->xwt(h_.get(), rows, d, w.qkv.get(), qkvd, qkv_.get(), false);
    if (w.qkv_bias.capacity()) cuda::launch_bias_add(qkv_.get(), rows, qkvd, qkvd, w.qkv_bias.get(), s);
    cuda::launch_rope(qkv_.get(), rows, qkvd, c.n_heads, c.n_kv_heads, c.head_dim, pack_->device<int32_t>(at_rope_pos_),
                      inv_freq_.get(), s);
    for (const ItemRun& it : runs_) {
        if (it.m == 0) continue;
        // This forward's K/V go into the item's cache first: attention reads every column from it.
        cuda::launch_kv_cache_write(qkv_.get() + it.row_offset * qkvd, it.m, qkvd, qd, qd + kvd, kvd,
                                    row_pos + it.row_offset, it.cache->k(l), it.cache->v(l), s);
        attend(l, it);
    }
    gemm_->xwt(att_.get(), rows, qd, w.wo.get(), d, x_.get(), true);

    // FFN block.
    cuda::launch_rms_norm(x_.get(), rows, d, w.ffn_norm.get(), eps, h_.get(), s);
    gemm_->xwt(h_.get(), rows, d, w.gate_up.get(), 2 * ff, gate_up_.get(), false);
    cuda::launch_swiglu(gate_up_.get(), rows, ff, act_.get(), s);
    gemm_->xwt(act_.get(), rows, ff, w.down.get(), d, x_.get(), true);
}

void CudaBackend::attend(int l, const ItemRun& it) {
    const ModelConfig& c = config_;
    const cudaStream_t s = stream_->get();
    const std::size_t qkvd = static_cast<std::size_t>(c.q_dim() + 2 * c.kv_dim()), qd = static_cast<std::size_t>(c.q_dim());
    const std::size_t H = static_cast<std::size_t>(c.n_heads);
    const bool last = l == c.n_layers - 1;

    cuda::AttentionArgs a;
    a.q = qkv_.get() + it.row_offset * qkvd;
    a.q_stride = static_cast<int>(qkvd);
    a.k_cache = it.cache->k(l);
    a.v_cache = it.cache->v(l);
    if (it.override_source) {
        a.k_override = it.override_source->k(l);
        a.v_override = it.override_source->v(l);
        a.overridden = pack_->device<uint8_t>(it.at_overridden);
    }
    // The closed form first runs every row, seeds included, against the overridden columns.
    a.self_sees_fresh = it.self_sees_fresh && !it.correct_diagonal;
    a.verifier_offset = it.verifier_offset;
    a.row_pos = pack_->device<int32_t>(at_row_pos_) + it.row_offset;
    a.m = it.m;
    a.n = it.columns;
    a.causal = !c.bidirectional;
    if (it.shadow.active()) {
        a.shadow_first = it.shadow.first;
        a.shadow_twin_first = it.shadow.twin_first;
        a.shadow_count = it.shadow.count;
    }
    a.n_heads = c.n_heads;
    a.n_kv_heads = c.n_kv_heads;
    a.head_dim = c.head_dim;
    a.scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(c.head_dim)));
    a.out = att_.get() + it.row_offset * qd;
    a.out_stride = static_cast<int>(qd);
    if (it.correct_diagonal && !it.seeds.empty()) a.out_f32 = att_f32_.get() + it.row_offset * qd;
    a.lse = it.lse ? it.lse + (it.want_lse ? static_cast<std::size_t>(l) * it.m * H : 0) : nullptr;
    a.split_workspace = split_.get();
    a.split_workspace_floats = split_.capacity();

    cuda::launch_attention(a, s);
    if (it.correct_diagonal && !it.seeds.empty())
        cuda::launch_cover_correction(a, pack_->device<int32_t>(it.at_seeds), static_cast<int>(it.seeds.size()), s);
    if (last && it.want_attention) {
        // The probabilities report the final view (a self-seeing seed's leave-one-out row) over
        // the whole canvas: causal rows' columns past the last row come out as 0.
        cuda::AttentionArgs p = a;
        p.self_sees_fresh = it.self_sees_fresh;
        p.n = it.n;
        cuda::launch_attention_probs(p, a.lse, it.probs, s);
    }
}

std::vector<RowStats> CudaBackend::row_stats(const RowStatsRequest& req) {
    const ItemRun& it = output(req.item);
    CudaPosteriorStore* store = nullptr;
    if (req.posteriors) {
        store = dynamic_cast<CudaPosteriorStore*>(req.posteriors);
        if (!store) throw Error("row statistics: the posterior store was not made by the CUDA backend");
        if (store->vocab() != config_.vocab_size)
            throw Error("row statistics: the posterior store was made for a vocabulary of " +
                        std::to_string(store->vocab()) + ", the model has " + std::to_string(config_.vocab_size));
    }
    validate_row_stats_request(req, [this](int item) { return output(item).head_rows; },
                               store ? store->positions() : 0);
    const int uncond_first =
        req.cfg_uncond_item >= 0 ? static_cast<int>(output(req.cfg_uncond_item).head_offset) : -1;
    stream_->activate();
    return row_stats_->run(req, logits_.get(), config_.vocab_size, static_cast<int>(it.head_offset), uncond_first,
                           store);
}

}  // namespace

std::unique_ptr<Backend> make_cuda_backend(const ModelWeights& weights, CudaBackendOptions options) {
    cuda::attention_tiling();  // a misspelt DLM_CUDA_ATTENTION_TILING is refused at load, not at the first step
    return std::make_unique<CudaBackend>(weights, options);
}

const char* cuda_attention_tiling() { return cuda::attention_tiling_name(cuda::attention_tiling()); }

}  // namespace dlm
