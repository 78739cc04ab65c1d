#include <gtest/gtest.h>

#include "model/model_config.h"
#include "model/model_config_writer.h"

namespace dlm {
namespace {

ModelConfig sample(Family f) {
    ModelConfig c;
    c.family = f;
    c.d_model = 96;
    c.n_layers = 3;
    c.n_heads = 6;
    c.n_kv_heads = f == Family::Llada ? 6 : 2;
    c.head_dim = 16;
    c.d_ff = 200;
    c.vocab_size = 300;
    c.max_seq_len = 512;
    c.rope_theta = 500000.0;
    c.rms_eps = 1e-6;
    c.qkv_bias = f != Family::Llada;
    c.tied_embeddings = f == Family::Qwen2;
    c.mask_token_id = f == Family::Qwen2 ? -1 : 299;
    c.eos_token_id = 298;
    c.pad_token_id = 298;
    c.bos_token_id = f == Family::Llada ? -1 : 297;
    return c;
}

TEST(ModelConfigWriter, EveryFamilyRoundTripsThroughTheParser) {
    for (Family f : {Family::Llada, Family::Dream, Family::Qwen2}) {
        const ModelConfig c = sample(f);
        const ModelConfig r = parse_model_config(model_config_json(c), "written");
        SCOPED_TRACE(std::string(family_name(f)));
        EXPECT_EQ(r.family, c.family);
        EXPECT_EQ(r.d_model, c.d_model);
        EXPECT_EQ(r.n_layers, c.n_layers);
        EXPECT_EQ(r.n_heads, c.n_heads);
        EXPECT_EQ(r.n_kv_heads, c.n_kv_heads);
        EXPECT_EQ(r.head_dim, c.head_dim);
        EXPECT_EQ(r.d_ff, c.d_ff);
        EXPECT_EQ(r.vocab_size, c.vocab_size);
        EXPECT_EQ(r.max_seq_len, c.max_seq_len);
        EXPECT_DOUBLE_EQ(r.rope_theta, c.rope_theta);
        EXPECT_DOUBLE_EQ(r.rms_eps, c.rms_eps);
        EXPECT_EQ(r.qkv_bias, c.qkv_bias);
        EXPECT_EQ(r.tied_embeddings, c.tied_embeddings);
        EXPECT_EQ(r.mask_token_id, c.mask_token_id);
        EXPECT_EQ(r.eos_token_id, c.eos_token_id);
        EXPECT_EQ(r.pad_token_id, c.pad_token_id);
        EXPECT_EQ(r.bos_token_id, c.bos_token_id);
    }
}

TEST(ModelConfigWriter, LladaUsesThePublishedFieldNames) {
    const std::string j = model_config_json(sample(Family::Llada));
    for (const char* key : {"\"d_model\"", "\"n_layers\"", "\"mlp_hidden_size\"", "\"embedding_size\"",
                            "\"max_sequence_length\"", "\"block_type\": \"llama\"", "\"weight_tying\": false"})
        EXPECT_NE(j.find(key), std::string::npos) << key << " missing in " << j;
}

}  // namespace
}  // namespace dlm
