#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/model_test_support.h"
#include "model/model_weights.h"
#include "support/safetensors_writer.h"

namespace dlm {
namespace {

using nlohmann::json;
using test::expect_error;
using test::TempDir;
using test::TensorData;
using Tensors = std::map<std::string, TensorData>;

// Tiny configs: d=8, 2 layers, 2 heads (head_dim 4), d_ff 12, 16 embedding rows.
json tiny_llada(bool tied) {
    return {{"architectures", {"LLaDAModelLM"}}, {"model_type", "llada"}, {"d_model", 8}, {"n_layers", 2},
            {"n_heads", 2}, {"n_kv_heads", 2}, {"mlp_hidden_size", 12}, {"vocab_size", 16},
            {"max_sequence_length", 64}, {"rope_theta", 10000.0}, {"rms_norm_eps", 1e-5},
            {"weight_tying", tied}, {"mask_token_id", 15}, {"eos_token_id", 14}};
}

json tiny_qwen2_style(const char* architecture, const char* model_type, bool tied) {
    json j = {{"architectures", {architecture}}, {"model_type", model_type}, {"hidden_size", 8},
              {"num_hidden_layers", 2}, {"num_attention_heads", 2}, {"num_key_value_heads", 1},
              {"intermediate_size", 12}, {"vocab_size", 16}, {"max_position_embeddings", 64},
              {"rope_theta", 1e6}, {"rms_norm_eps", 1e-6}, {"tie_word_embeddings", tied}};
    if (std::string(model_type) == "Dream") j["mask_token_id"] = 15;
    return j;
}

ModelConfig config_of(const json& j) { return parse_model_config(j.dump(), "tiny/config.json"); }

// Every tensor gets distinct values (offset by a per-tensor seed) so tests can tell them apart.
TensorData make(std::vector<int64_t> shape, float seed, DType t = DType::F32) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    std::vector<float> v(static_cast<std::size_t>(n));
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = seed + 0.125f * static_cast<float>(i % 16);
    return {std::move(shape), std::move(v), t};
}

Tensors llada_tensors(const ModelConfig& c) {
    const int64_t d = c.d_model, q = c.q_dim(), kv = c.kv_dim(), ff = c.d_ff, V = c.vocab_size;
    Tensors t;
    float seed = 1;
    t["model.transformer.wte.weight"] = make({V, d}, seed++, DType::BF16);
    for (int n = 0; n < c.n_layers; ++n) {
        const std::string p = "model.transformer.blocks." + std::to_string(n) + ".";
        t[p + "attn_norm.weight"] = make({d}, seed++);
        t[p + "q_proj.weight"] = make({q, d}, seed++, DType::BF16);
        t[p + "k_proj.weight"] = make({kv, d}, seed++, DType::BF16);
        t[p + "v_proj.weight"] = make({kv, d}, seed++, DType::BF16);
        t[p + "attn_out.weight"] = make({d, q}, seed++, DType::F16);
        t[p + "ff_norm.weight"] = make({d}, seed++);
        t[p + "ff_proj.weight"] = make({ff, d}, seed++);
        t[p + "up_proj.weight"] = make({ff, d}, seed++);
        t[p + "ff_out.weight"] = make({d, ff}, seed++);
    }
    t["model.transformer.ln_f.weight"] = make({d}, seed++);
    if (!c.tied_embeddings) t["model.transformer.ff_out.weight"] = make({V, d}, 100);
    return t;
}

Tensors qwen2_style_tensors(const ModelConfig& c, bool with_lm_head) {
    const int64_t d = c.d_model, q = c.q_dim(), kv = c.kv_dim(), ff = c.d_ff, V = c.vocab_size;
    Tensors t;
    float seed = 1;
    t["model.embed_tokens.weight"] = make({V, d}, seed++, DType::BF16);
    for (int n = 0; n < c.n_layers; ++n) {
        const std::string p = "model.layers." + std::to_string(n) + ".";
        t[p + "input_layernorm.weight"] = make({d}, seed++);
        t[p + "self_attn.q_proj.weight"] = make({q, d}, seed++);
        t[p + "self_attn.k_proj.weight"] = make({kv, d}, seed++);
        t[p + "self_attn.v_proj.weight"] = make({kv, d}, seed++);
        t[p + "self_attn.q_proj.bias"] = make({q}, seed++);
        t[p + "self_attn.k_proj.bias"] = make({kv}, seed++);
        t[p + "self_attn.v_proj.bias"] = make({kv}, seed++);
        t[p + "self_attn.o_proj.weight"] = make({d, q}, seed++);
        t[p + "post_attention_layernorm.weight"] = make({d}, seed++);
        t[p + "mlp.gate_proj.weight"] = make({ff, d}, seed++);
        t[p + "mlp.up_proj.weight"] = make({ff, d}, seed++);
        t[p + "mlp.down_proj.weight"] = make({d, ff}, seed++);
    }
    t["model.norm.weight"] = make({d}, seed++);
    if (with_lm_head) t["lm_head.weight"] = make({V, d}, 100);
    return t;
}

float first_value(const TensorView* t) {
    float v = 0;
    convert_to_f32(t->dtype, t->data, &v, 1);
    return v;
}

class ModelWeightsBinding : public ::testing::Test {
protected:
    std::shared_ptr<WeightStore> store_of(const Tensors& t) {
        test::write_safetensors(dir / "model.safetensors", t);
        return WeightStore::open(dir.path());
    }
    TempDir dir;
};

void expect_complete_layers(const ModelWeights& w, bool biases) {
    ASSERT_EQ(w.layers.size(), static_cast<std::size_t>(w.config.n_layers));
    for (const LayerWeights& l : w.layers) {
        for (const TensorView* t : {l.attn_norm, l.wq, l.wk, l.wv, l.wo, l.ffn_norm, l.w_gate, l.w_up, l.w_down}) {
            EXPECT_NE(t, nullptr);
        }
        EXPECT_EQ(l.bq != nullptr, biases);
        EXPECT_EQ(l.bk != nullptr, biases);
        EXPECT_EQ(l.bv != nullptr, biases);
    }
    EXPECT_NE(w.embed, nullptr);
    EXPECT_NE(w.final_norm, nullptr);
    EXPECT_NE(w.lm_head, nullptr);
}

TEST_F(ModelWeightsBinding, LladaUntiedAndFfOutCollision) {
    const ModelConfig c = config_of(tiny_llada(false));
    const ModelWeights w = bind_weights(c, store_of(llada_tensors(c)));
    expect_complete_layers(w, false);
    EXPECT_TRUE(w.unexpected.empty());
    EXPECT_EQ(w.config.family, Family::Llada);
    // The head is the top-level ff_out; each block's ff_out is its own down projection.
    EXPECT_EQ(w.lm_head->name, "model.transformer.ff_out.weight");
    EXPECT_EQ(w.lm_head->shape, (std::vector<int64_t>{16, 8}));
    EXPECT_EQ(first_value(w.lm_head), 100.0f);
    EXPECT_NE(w.lm_head, w.embed);
    for (int n = 0; n < 2; ++n) {
        const TensorView* down = w.layers[n].w_down;
        EXPECT_EQ(down->name, "model.transformer.blocks." + std::to_string(n) + ".ff_out.weight");
        EXPECT_EQ(down->shape, (std::vector<int64_t>{8, 12}));
        EXPECT_NE(first_value(down), 100.0f);
    }
    EXPECT_EQ(w.layers[1].w_gate->name, "model.transformer.blocks.1.ff_proj.weight");
    EXPECT_EQ(w.layers[1].w_up->name, "model.transformer.blocks.1.up_proj.weight");
    EXPECT_EQ(w.layers[0].wo->name, "model.transformer.blocks.0.attn_out.weight");
    EXPECT_EQ(w.embed->dtype, DType::BF16);
    EXPECT_EQ(first_value(w.embed), 1.0f);
}

TEST_F(ModelWeightsBinding, LladaHeadMissingWhileBlockFfOutPresent) {
    // Suffix matching would happily take a block's ff_out for the head; exact names must not.
    const ModelConfig c = config_of(tiny_llada(false));
    Tensors t = llada_tensors(c);
    t.erase("model.transformer.ff_out.weight");
    expect_error([&] { bind_weights(c, store_of(t)); },
                 {"tensor \"model.transformer.ff_out.weight\" is missing", dir.path().string()});
}

TEST_F(ModelWeightsBinding, LladaWeightTying) {
    const ModelConfig c = config_of(tiny_llada(true));
    const ModelWeights w = bind_weights(c, store_of(llada_tensors(c)));
    expect_complete_layers(w, false);
    EXPECT_EQ(w.lm_head, w.embed);
    EXPECT_TRUE(w.unexpected.empty());
}

TEST_F(ModelWeightsBinding, LladaQkvBias) {
    json j = tiny_llada(false);
    j["include_qkv_bias"] = true;
    const ModelConfig c = config_of(j);
    Tensors t = llada_tensors(c);
    for (int n = 0; n < 2; ++n) {
        const std::string p = "model.transformer.blocks." + std::to_string(n) + ".";
        t[p + "q_proj.bias"] = make({8}, 50);
        t[p + "k_proj.bias"] = make({8}, 51);
        t[p + "v_proj.bias"] = make({8}, 52);
    }
    const ModelWeights w = bind_weights(c, store_of(t));
    expect_complete_layers(w, true);
    EXPECT_EQ(w.layers[1].bk->name, "model.transformer.blocks.1.k_proj.bias");
}

TEST_F(ModelWeightsBinding, DreamWithBiasAndLmHead) {
    const ModelConfig c = config_of(tiny_qwen2_style("DreamModel", "Dream", false));
    Tensors t = qwen2_style_tensors(c, true);
    t["model.rotary_emb.inv_freq"] = make({2}, 0);  // buffers some exports keep
    t["model.layers.0.self_attn.rotary_emb.inv_freq"] = make({2}, 0);
    const ModelWeights w = bind_weights(c, store_of(t));
    expect_complete_layers(w, true);
    EXPECT_EQ(w.lm_head->name, "lm_head.weight");
    EXPECT_EQ(first_value(w.lm_head), 100.0f);
    EXPECT_EQ(w.layers[0].wk->shape, (std::vector<int64_t>{4, 8}));  // GQA: 1 KV head of 4
    EXPECT_EQ(w.layers[0].bk->shape, (std::vector<int64_t>{4}));
    EXPECT_EQ(w.layers[1].w_down->name, "model.layers.1.mlp.down_proj.weight");
    EXPECT_EQ(w.unexpected, (std::vector<std::string>{"model.layers.0.self_attn.rotary_emb.inv_freq",
                                                       "model.rotary_emb.inv_freq"}));
}

TEST_F(ModelWeightsBinding, Qwen2TiedWithoutLmHead) {
    const ModelConfig c = config_of(tiny_qwen2_style("Qwen2ForCausalLM", "qwen2", true));
    const ModelWeights w = bind_weights(c, store_of(qwen2_style_tensors(c, false)));
    expect_complete_layers(w, true);
    EXPECT_EQ(w.lm_head, w.embed);
    EXPECT_EQ(w.lm_head->name, "model.embed_tokens.weight");
    EXPECT_TRUE(w.unexpected.empty());
}

TEST_F(ModelWeightsBinding, UntiedWithoutLmHeadIsAnError) {
    const ModelConfig c = config_of(tiny_qwen2_style("Qwen2ForCausalLM", "qwen2", false));
    expect_error([&] { bind_weights(c, store_of(qwen2_style_tensors(c, false))); },
                 {"tensor \"lm_head.weight\" is missing", dir.path().string()});
}

TEST_F(ModelWeightsBinding, MissingTensorIsNamed) {
    const ModelConfig c = config_of(tiny_qwen2_style("DreamModel", "Dream", false));
    Tensors t = qwen2_style_tensors(c, true);
    t.erase("model.layers.1.self_attn.v_proj.bias");
    expect_error([&] { bind_weights(c, store_of(t)); },
                 {"tensor \"model.layers.1.self_attn.v_proj.bias\" is missing", dir.path().string(), "dream"});
}

TEST_F(ModelWeightsBinding, WrongShapeNamesTensorFileAndBothShapes) {
    const ModelConfig c = config_of(tiny_llada(false));
    Tensors t = llada_tensors(c);
    t["model.transformer.blocks.1.up_proj.weight"] = make({8, 12}, 7);  // transposed
    const std::string msg = expect_error(
        [&] { bind_weights(c, store_of(t)); },
        {"tensor \"model.transformer.blocks.1.up_proj.weight\" has shape [8, 12], expected [12, 8]", "model.safetensors"});
    EXPECT_EQ(msg.rfind((dir / "model.safetensors").string(), 0), 0u) << msg;

    // Embedding rows must equal the config's vocabulary rows.
    t = llada_tensors(c);
    t["model.transformer.wte.weight"] = make({15, 8}, 1);
    expect_error([&] { bind_weights(c, store_of(t)); },
                 {"\"model.transformer.wte.weight\" has shape [15, 8], expected [16, 8]"});
}

TEST_F(ModelWeightsBinding, TiedCopyOfLmHeadIsListedAsUnexpected) {
    // Tied configs take the embedding, as transformers does, even when a copy was saved.
    const ModelConfig c = config_of(tiny_qwen2_style("Qwen2ForCausalLM", "qwen2", true));
    const ModelWeights w = bind_weights(c, store_of(qwen2_style_tensors(c, true)));
    EXPECT_EQ(w.lm_head, w.embed);
    EXPECT_EQ(w.unexpected, (std::vector<std::string>{"lm_head.weight"}));
}

TEST_F(ModelWeightsBinding, WrongFamilyNamesFailClearly) {
    // A Qwen2-named file under a LLaDA config: the first LLaDA name is reported missing, and the
    // store keeps serving the weights for other uses.
    const ModelConfig qwen = config_of(tiny_qwen2_style("Qwen2ForCausalLM", "qwen2", true));
    const ModelConfig llada = config_of(tiny_llada(false));
    auto store = store_of(qwen2_style_tensors(qwen, false));
    expect_error([&] { bind_weights(llada, store); }, {"\"model.transformer.wte.weight\" is missing", "llada"});
    EXPECT_NO_THROW(bind_weights(qwen, store));
}

}  // namespace
}  // namespace dlm
