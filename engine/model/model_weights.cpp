#include "model/model_weights.h"

#include <set>

#include "util/error.h"

namespace dlm {

namespace {

std::string shape_string(const std::vector<int64_t>& shape) {
    std::string s = "[";
    for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + "]";
}

// Looks tensors up by their exact full names. Suffix matching would confuse LLaDA's LM head
// "model.transformer.ff_out.weight" with the per-block down projection "...blocks.N.ff_out.weight".
class Binder {
public:
    Binder(const ModelConfig& config, const WeightStore& store) : config_(config), store_(store) {}

    const TensorView* require(const std::string& name, std::vector<int64_t> shape) {
        const TensorView* t = store_.find(name);
        if (!t) {
            throw Error(folder() + ": tensor \"" + name + "\" is missing (needed by the " +
                        std::string(family_name(config_.family)) + " architecture with " +
                        std::to_string(config_.n_layers) + " layers)");
        }
        return check(t, shape);
    }

    const TensorView* optional(const std::string& name, std::vector<int64_t> shape) {
        const TensorView* t = store_.find(name);
        return t ? check(t, shape) : nullptr;
    }

    std::vector<std::string> unused() const {
        std::vector<std::string> out;
        for (const auto& [name, view] : store_.all()) {
            if (used_.count(name) == 0) out.push_back(name);
        }
        return out;
    }

private:
    const TensorView* check(const TensorView* t, const std::vector<int64_t>& shape) {
        if (t->shape != shape) {
            throw Error(t->file + ": tensor \"" + t->name + "\" has shape " + shape_string(t->shape) + ", expected " +
                        shape_string(shape) + " from config.json");
        }
        used_.insert(t->name);
        return t;
    }

    std::string folder() const {
        if (store_.files().empty()) return "(empty checkpoint)";
        return store_.files().front()->path().parent_path().string();
    }

    const ModelConfig& config_;
    const WeightStore& store_;
    std::set<std::string> used_;
};

void bind_llada(const ModelConfig& c, Binder& b, ModelWeights& w) {
    const int64_t d = c.d_model, q = c.q_dim(), kv = c.kv_dim(), ff = c.d_ff, V = c.vocab_size;
    const std::string root = "model.transformer.";
    w.embed = b.require(root + "wte.weight", {V, d});
    for (int n = 0; n < c.n_layers; ++n) {
        const std::string p = root + "blocks." + std::to_string(n) + ".";
        LayerWeights& l = w.layers[n];
        l.attn_norm = b.require(p + "attn_norm.weight", {d});
        l.wq = b.require(p + "q_proj.weight", {q, d});
        l.wk = b.require(p + "k_proj.weight", {kv, d});
        l.wv = b.require(p + "v_proj.weight", {kv, d});
        if (c.qkv_bias) {
            l.bq = b.require(p + "q_proj.bias", {q});
            l.bk = b.require(p + "k_proj.bias", {kv});
            l.bv = b.require(p + "v_proj.bias", {kv});
        }
        l.wo = b.require(p + "attn_out.weight", {d, q});
        l.ffn_norm = b.require(p + "ff_norm.weight", {d});
        l.w_gate = b.require(p + "ff_proj.weight", {ff, d});
        l.w_up = b.require(p + "up_proj.weight", {ff, d});
        l.w_down = b.require(p + "ff_out.weight", {d, ff});  // block down-projection, not the head
    }
    w.final_norm = b.require(root + "ln_f.weight", {d});
    // With weight_tying the head is wte (a stray ff_out stays in `unexpected`).
    w.lm_head = c.tied_embeddings ? w.embed : b.require(root + "ff_out.weight", {V, d});
}

void bind_qwen2_style(const ModelConfig& c, Binder& b, ModelWeights& w) {
    const int64_t d = c.d_model, q = c.q_dim(), kv = c.kv_dim(), ff = c.d_ff, V = c.vocab_size;
    w.embed = b.require("model.embed_tokens.weight", {V, d});
    for (int n = 0; n < c.n_layers; ++n) {
        const std::string p = "model.layers." + std::to_string(n) + ".";
        LayerWeights& l = w.layers[n];
        l.attn_norm = b.require(p + "input_layernorm.weight", {d});
        l.wq = b.require(p + "self_attn.q_proj.weight", {q, d});
        l.wk = b.require(p + "self_attn.k_proj.weight", {kv, d});
        l.wv = b.require(p + "self_attn.v_proj.weight", {kv, d});
        if (c.qkv_bias) {
            l.bq = b.require(p + "self_attn.q_proj.bias", {q});
            l.bk = b.require(p + "self_attn.k_proj.bias", {kv});
            l.bv = b.require(p + "self_attn.v_proj.bias", {kv});
        }
        l.wo = b.require(p + "self_attn.o_proj.weight", {d, q});
        l.ffn_norm = b.require(p + "post_attention_layernorm.weight", {d});
        l.w_gate = b.require(p + "mlp.gate_proj.weight", {ff, d});
        l.w_up = b.require(p + "mlp.up_proj.weight", {ff, d});
        l.w_down = b.require(p + "mlp.down_proj.weight", {d, ff});
    }
    w.final_norm = b.require("model.norm.weight", {d});
    // Tied: the head is the embedding, as transformers ties it even when a copy was saved (Qwen2.5
    // guiders ship without lm_head.weight). Untied: lm_head.weight must be there.
    w.lm_head = c.tied_embeddings ? w.embed : b.require("lm_head.weight", {V, d});
}

}  // namespace

ModelWeights bind_weights(const ModelConfig& config, std::shared_ptr<WeightStore> store) {
    if (!store) throw Error("bind_weights: no weight store");
    ModelWeights w;
    w.config = config;
    w.store = store;
    w.layers.resize(static_cast<std::size_t>(config.n_layers));
    Binder binder(config, *store);
    switch (config.family) {
        case Family::Llada:
            bind_llada(config, binder, w);
            break;
        case Family::Dream:
        case Family::Qwen2:
            bind_qwen2_style(config, binder, w);
            break;
    }
    w.unexpected = binder.unused();
    return w;
}

}  // namespace dlm
