#include "cuda_weights.h"

#include <cstdio>
#include <string>

#include "cuda_check.h"
#include "util/error.h"
#include "weight_uploader.h"

namespace dlm::cuda {

namespace {

// Left free for the cuBLAS workspace, the forward's scratch and a first K/V cache, so that a
// model that only just fits fails here, with a clear message, rather than on its first forward.
constexpr std::size_t kWorkingReserveBytes = std::size_t(256) << 20;

std::string gib(std::size_t bytes) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f GiB", static_cast<double>(bytes) / double(1ull << 30));
    return buf;
}

void check_tensor(const TensorView* t, const std::string& role, int64_t numel) {
    if (!t) throw Error("CUDA backend: the model has no " + role + " tensor");
    if (t->numel() != numel || t->data == nullptr)
        throw Error("CUDA backend: tensor " + t->name + " (" + role + ") has " + std::to_string(t->numel()) +
                    " elements, expected " + std::to_string(numel));
    if (t->nbytes < static_cast<std::size_t>(numel) * dtype_size(t->dtype))
        throw Error("CUDA backend: tensor " + t->name + " is shorter than its shape");
}

bool head_is_tied(const ModelWeights& w) { return w.lm_head == w.embed || w.lm_head->data == w.embed->data; }

void check_all(const ModelWeights& weights) {
    const ModelConfig& c = weights.config;
    const int64_t d = c.d_model, qd = c.q_dim(), kvd = c.kv_dim(), ff = c.d_ff, V = c.vocab_size;
    if (static_cast<int>(weights.layers.size()) != c.n_layers)
        throw Error("CUDA backend: the model binds " + std::to_string(weights.layers.size()) + " layers, config says " +
                    std::to_string(c.n_layers));
    check_tensor(weights.embed, "token embedding", V * d);
    check_tensor(weights.final_norm, "final norm", d);
    check_tensor(weights.lm_head, "LM head", V * d);
    for (std::size_t l = 0; l < weights.layers.size(); ++l) {
        const LayerWeights& w = weights.layers[l];
        const std::string n = "layer " + std::to_string(l) + " ";
        check_tensor(w.attn_norm, n + "attention norm", d);
        check_tensor(w.ffn_norm, n + "FFN norm", d);
        check_tensor(w.wq, n + "query projection", qd * d);
        check_tensor(w.wk, n + "key projection", kvd * d);
        check_tensor(w.wv, n + "value projection", kvd * d);
        check_tensor(w.wo, n + "output projection", d * qd);
        check_tensor(w.w_gate, n + "FFN gate", ff * d);
        check_tensor(w.w_up, n + "FFN up", ff * d);
        check_tensor(w.w_down, n + "FFN down", d * ff);
        if (c.qkv_bias) {
            check_tensor(w.bq, n + "query bias", qd);
            check_tensor(w.bk, n + "key bias", kvd);
            check_tensor(w.bv, n + "value bias", kvd);
        }
    }
}

}  // namespace

std::size_t CudaWeights::device_bytes(const ModelWeights& weights) {
    const ModelConfig& c = weights.config;
    const std::size_t d = static_cast<std::size_t>(c.d_model), qd = static_cast<std::size_t>(c.q_dim()),
                      kvd = static_cast<std::size_t>(c.kv_dim()), ff = static_cast<std::size_t>(c.d_ff),
                      V = static_cast<std::size_t>(c.vocab_size), L = static_cast<std::size_t>(c.n_layers);
    const std::size_t bf16 = sizeof(__nv_bfloat16), f32 = sizeof(float);
    std::size_t per_layer = ((qd + 2 * kvd) * d + d * qd + 2 * ff * d + d * ff) * bf16 + 2 * d * f32;
    if (c.qkv_bias) per_layer += (qd + 2 * kvd) * f32;
    std::size_t total = L * per_layer + V * d * bf16 + d * f32;
    if (!head_is_tied(weights)) total += V * d * bf16;
    return total;
}

CudaWeights::CudaWeights(const ModelWeights& weights, const CudaStream& stream) {
    check_all(weights);
    const ModelConfig& c = weights.config;
    const std::size_t needed = device_bytes(weights);
    std::size_t free_b = 0, total_b = 0;
    check(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo");
    if (needed + kWorkingReserveBytes > free_b) {
        cudaDeviceProp prop{};
        const std::string device =
            cudaGetDeviceProperties(&prop, stream.device()) == cudaSuccess ? std::string(prop.name) : "the GPU";
        throw Error("CUDA backend: the model needs " + gib(needed) + " of GPU memory for its bf16 weights (plus " +
                    gib(kWorkingReserveBytes) + " to work in), but " + device + " has " + gib(free_b) + " free of " +
                    gib(total_b));
    }

    const std::size_t d = static_cast<std::size_t>(c.d_model), qd = static_cast<std::size_t>(c.q_dim()),
                      kvd = static_cast<std::size_t>(c.kv_dim()), ff = static_cast<std::size_t>(c.d_ff),
                      V = static_cast<std::size_t>(c.vocab_size);
    WeightUploader up(stream);
    embed_.reserve(V * d, "token embedding");
    up.to_bf16(*weights.embed, embed_.get());
    layers_.resize(weights.layers.size());
    for (std::size_t l = 0; l < layers_.size(); ++l) {
        const LayerWeights& w = weights.layers[l];
        CudaLayerWeights& g = layers_[l];
        g.qkv.reserve((qd + 2 * kvd) * d, "fused Q|K|V weights");
        up.to_bf16(*w.wq, g.qkv.get());
        up.to_bf16(*w.wk, g.qkv.get() + qd * d);
        up.to_bf16(*w.wv, g.qkv.get() + (qd + kvd) * d);
        g.wo.reserve(d * qd, "output projection weights");
        up.to_bf16(*w.wo, g.wo.get());
        g.gate_up.reserve(2 * ff * d, "fused gate|up weights");
        up.to_bf16(*w.w_gate, g.gate_up.get());
        up.to_bf16(*w.w_up, g.gate_up.get() + ff * d);
        g.down.reserve(d * ff, "down projection weights");
        up.to_bf16(*w.w_down, g.down.get());
        g.attn_norm.reserve(d, "attention norm");
        up.to_f32(*w.attn_norm, g.attn_norm.get());
        g.ffn_norm.reserve(d, "FFN norm");
        up.to_f32(*w.ffn_norm, g.ffn_norm.get());
        if (c.qkv_bias) {
            g.qkv_bias.reserve(qd + 2 * kvd, "Q|K|V bias");
            up.to_f32(*w.bq, g.qkv_bias.get());
            up.to_f32(*w.bk, g.qkv_bias.get() + qd);
            up.to_f32(*w.bv, g.qkv_bias.get() + qd + kvd);
        }
    }
    final_norm_.reserve(d, "final norm");
    up.to_f32(*weights.final_norm, final_norm_.get());
    if (!head_is_tied(weights)) {
        head_.reserve(V * d, "LM head");
        up.to_bf16(*weights.lm_head, head_.get());
    }
    up.finish();
    bytes_ = needed;
}

}  // namespace dlm::cuda
