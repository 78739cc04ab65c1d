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

// A family's per-layer tensor names, relative to the layer's prefix. One binding routine reads
// them, so the shape checks are written once.
struct LayerNames {
    const char* attn_norm;
    const char* q;
    const char* k;
    const char* v;
    const char* o;
    const char* ffn_norm;
    const char* gate;
    const char* up;
    const char* down;
};

// LLaDA: `blocks.N.ff_out` is the block's down-projection, not the head (`transformer.ff_out`).
constexpr LayerNames kLladaLayer{"attn_norm", "q_proj", "k_proj", "v_proj", "attn_out",
                                 "ff_norm",   "ff_proj", "up_proj", "ff_out"};
constexpr LayerNames kQwen2Layer{"input_layernorm", "self_attn.q_proj", "self_attn.k_proj",
                                 "self_attn.v_proj", "self_attn.o_proj", "post_attention_layernorm",
                                 "mlp.gate_proj",    "mlp.up_proj",      "mlp.down_proj"};

void bind_layers(const ModelConfig& c, Binder& b, ModelWeights& w, const std::string& layer_root,
                 const LayerNames& names) {
    const int64_t d = c.d_model, q = c.q_dim(), kv = c.kv_dim(), ff = c.d_ff;
    for (int n = 0; n < c.n_layers; ++n) {
        const std::string p = layer_root + std::to_string(n) + ".";
        auto name = [&](const char* t, const char* kind) { return p + t + "." + kind; };
        LayerWeights& l = w.layers[n];
        l.attn_norm = b.require(name(names.attn_norm, "weight"), {d});
        l.wq = b.require(name(names.q, "weight"), {q, d});
        l.wk = b.require(name(names.k, "weight"), {kv, d});
        l.wv = b.require(name(names.v, "weight"), {kv, d});
        if (c.qkv_bias) {
            l.bq = b.require(name(names.q, "bias"), {q});
            l.bk = b.require(name(names.k, "bias"), {kv});
            l.bv = b.require(name(names.v, "bias"), {kv});
        }
        l.wo = b.require(name(names.o, "weight"), {d, q});
        l.ffn_norm = b.require(name(names.ffn_norm, "weight"), {d});
        l.w_gate = b.require(name(names.gate, "weight"), {ff, d});
        l.w_up = b.require(name(names.up, "weight"), {ff, d});
        l.w_down = b.require(name(names.down, "weight"), {d, ff});
    }
}

void bind_llada(const ModelConfig& c, Binder& b, ModelWeights& w) {
    const int64_t d = c.d_model, V = c.vocab_size;
    const std::string root = "model.transformer.";
    w.embed = b.require(root + "wte.weight", {V, d});
    bind_layers(c, b, w, root + "blocks.", kLladaLayer);
    w.final_norm = b.require(root + "ln_f.weight", {d});
    // With weight_tying the head is wte (a stray ff_out stays in `unexpected`).
    w.lm_head = c.tied_embeddings ? w.embed : b.require(root + "ff_out.weight", {V, d});
}

void bind_qwen2_style(const ModelConfig& c, Binder& b, ModelWeights& w) {
    const int64_t d = c.d_model, V = c.vocab_size;
    w.embed = b.require("model.embed_tokens.weight", {V, d});
    bind_layers(c, b, w, "model.layers.", kQwen2Layer);
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
