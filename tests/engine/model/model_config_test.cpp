#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/model_test_support.h"
#include "model/model_config.h"

namespace dlm {
namespace {

using nlohmann::json;
using test::expect_error;

// LLaDA-8B-Instruct config.json as published (auto_map trimmed).
const char* kLlada8B = R"({
  "activation_type": "silu", "alibi": false, "alibi_bias_max": 8.0, "architectures": ["LLaDAModelLM"],
  "attention_dropout": 0.0, "attention_layer_norm": false, "attention_layer_norm_with_affine": true,
  "auto_map": {"AutoConfig": "configuration_llada.LLaDAConfig", "AutoModel": "modeling_llada.LLaDAModelLM"},
  "bias_for_layer_norm": false, "block_group_size": 1, "block_type": "llama", "d_model": 4096,
  "embedding_dropout": 0.0, "embedding_size": 126464, "eos_token_id": 126081, "flash_attention": false,
  "include_bias": false, "include_qkv_bias": false, "init_cutoff_factor": null, "init_device": "meta",
  "init_fn": "mitchell", "init_std": 0.02, "input_emb_norm": false, "layer_norm_type": "rms",
  "layer_norm_with_affine": true, "mask_token_id": 126336, "max_sequence_length": 4096, "mlp_hidden_size": 12288,
  "mlp_ratio": 4, "model_type": "llada", "multi_query_attention": null, "n_heads": 32, "n_kv_heads": 32,
  "n_layers": 32, "pad_token_id": 126081, "precision": "amp_bf16", "residual_dropout": 0.0, "rms_norm_eps": 1e-05,
  "rope": true, "rope_full_precision": true, "rope_theta": 500000.0, "scale_logits": false,
  "transformers_version": "4.46.3", "use_cache": false, "vocab_size": 126464, "weight_tying": false
})";

// Dream-v0-Instruct-7B (§2.1).
const char* kDream7B = R"({
  "architectures": ["DreamModel"], "attention_dropout": 0.0,
  "auto_map": {"AutoConfig": "configuration_dream.DreamConfig", "AutoModel": "modeling_dream.DreamModel"},
  "bos_token_id": 151643, "eos_token_id": 151643, "hidden_act": "silu", "hidden_size": 3584,
  "initializer_range": 0.02, "intermediate_size": 18944, "mask_token_id": 151666,
  "max_position_embeddings": 131072, "max_window_layers": 28, "model_type": "Dream", "num_attention_heads": 28,
  "num_hidden_layers": 28, "num_key_value_heads": 4, "pad_token_id": 151643, "rms_norm_eps": 1e-06,
  "rope_scaling": null, "rope_theta": 1000000.0, "sliding_window": 131072, "tie_word_embeddings": false,
  "torch_dtype": "bfloat16", "transformers_version": "4.46.2", "use_cache": false, "use_sliding_window": false,
  "vocab_size": 152064
})";

// Qwen2.5-0.5B-Instruct (§3.1).
const char* kQwen05B = R"({
  "architectures": ["Qwen2ForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 151643, "eos_token_id": 151645,
  "hidden_act": "silu", "hidden_size": 896, "initializer_range": 0.02, "intermediate_size": 4864,
  "max_position_embeddings": 32768, "max_window_layers": 21, "model_type": "qwen2", "num_attention_heads": 14,
  "num_hidden_layers": 24, "num_key_value_heads": 2, "rms_norm_eps": 1e-06, "rope_scaling": null,
  "rope_theta": 1000000.0, "sliding_window": 32768, "tie_word_embeddings": true, "torch_dtype": "bfloat16",
  "transformers_version": "4.43.1", "use_cache": true, "use_sliding_window": false, "vocab_size": 151936
})";

ModelConfig parse(const json& j) { return parse_model_config(j.dump(), "cfg/config.json"); }

// `base` with `key` replaced (or removed when `value` is discarded).
json with(const char* base, const std::string& key, const json& value) {
    json j = json::parse(base);
    if (value.is_discarded()) j.erase(key);
    else j[key] = value;
    return j;
}
json without(const char* base, const std::string& key) { return with(base, key, json(json::value_t::discarded)); }

std::string expect_config_error(const json& j, std::initializer_list<std::string> parts) {
    std::string msg = expect_error([&] { parse(j); }, parts);
    EXPECT_EQ(msg.rfind("cfg/config.json: ", 0), 0u) << "message must start with the file name: " << msg;
    return msg;
}

TEST(ModelConfig, Llada8B) {
    const ModelConfig c = parse(json::parse(kLlada8B));
    EXPECT_EQ(c.family, Family::Llada);
    EXPECT_EQ(family_name(c.family), "llada");
    EXPECT_EQ(c.architecture, "LLaDAModelLM");
    EXPECT_EQ(c.d_model, 4096);
    EXPECT_EQ(c.n_layers, 32);
    EXPECT_EQ(c.n_heads, 32);
    EXPECT_EQ(c.n_kv_heads, 32);
    EXPECT_EQ(c.head_dim, 128);
    EXPECT_EQ(c.d_ff, 12288);
    EXPECT_EQ(c.vocab_size, 126464);
    EXPECT_EQ(c.max_seq_len, 4096);
    EXPECT_EQ(c.rope_theta, 500000.0);
    EXPECT_EQ(c.rms_eps, 1e-5);
    EXPECT_FALSE(c.qkv_bias);
    EXPECT_FALSE(c.tied_embeddings);
    EXPECT_TRUE(c.bidirectional);
    EXPECT_FALSE(c.shifted_logits);
    EXPECT_EQ(c.mask_token_id, 126336);
    EXPECT_EQ(c.eos_token_id, 126081);
    EXPECT_EQ(c.pad_token_id, 126081);
    EXPECT_EQ(c.bos_token_id, -1);
    EXPECT_EQ(c.eot_token_id, -1);
    EXPECT_TRUE(c.is_diffusion());
    EXPECT_EQ(parameter_count(c), 8'015'581'184LL);
}

TEST(ModelConfig, Dream7B) {
    const ModelConfig c = parse(json::parse(kDream7B));
    EXPECT_EQ(c.family, Family::Dream);
    EXPECT_EQ(family_name(c.family), "dream");
    EXPECT_EQ(c.architecture, "DreamModel");
    EXPECT_EQ(c.d_model, 3584);
    EXPECT_EQ(c.n_layers, 28);
    EXPECT_EQ(c.n_heads, 28);
    EXPECT_EQ(c.n_kv_heads, 4);
    EXPECT_EQ(c.head_dim, 128);
    EXPECT_EQ(c.kv_dim(), 512);
    EXPECT_EQ(c.d_ff, 18944);
    EXPECT_EQ(c.vocab_size, 152064);
    EXPECT_EQ(c.max_seq_len, 131072);
    EXPECT_EQ(c.rope_theta, 1e6);
    EXPECT_EQ(c.rms_eps, 1e-6);
    EXPECT_TRUE(c.qkv_bias);
    EXPECT_FALSE(c.tied_embeddings);
    EXPECT_TRUE(c.bidirectional);
    EXPECT_TRUE(c.shifted_logits);
    EXPECT_EQ(c.mask_token_id, 151666);
    EXPECT_EQ(c.bos_token_id, 151643);
    EXPECT_EQ(c.eos_token_id, 151643);
    EXPECT_EQ(parameter_count(c), 7'615'616'512LL);
}

TEST(ModelConfig, Qwen25Guider) {
    const ModelConfig c = parse(json::parse(kQwen05B));
    EXPECT_EQ(c.family, Family::Qwen2);
    EXPECT_EQ(family_name(c.family), "qwen2");
    EXPECT_EQ(c.head_dim, 64);
    EXPECT_EQ(c.n_kv_heads, 2);
    EXPECT_TRUE(c.qkv_bias);
    EXPECT_TRUE(c.tied_embeddings);
    EXPECT_FALSE(c.bidirectional);
    EXPECT_FALSE(c.shifted_logits);
    EXPECT_FALSE(c.is_diffusion());
    EXPECT_EQ(c.mask_token_id, -1);  // an AR model needs none
    EXPECT_EQ(c.eos_token_id, 151645);
    EXPECT_EQ(parameter_count(c), 494'032'768LL);
}

TEST(ModelConfig, FamilyFromModelTypeAlone) {
    EXPECT_EQ(parse(without(kDream7B, "architectures")).family, Family::Dream);
    EXPECT_EQ(parse(with(kDream7B, "model_type", "dream")).family, Family::Dream);
    EXPECT_EQ(parse(without(kLlada8B, "architectures")).family, Family::Llada);
    EXPECT_EQ(parse(without(kQwen05B, "architectures")).architecture, "qwen2");
}

TEST(ModelConfig, UnknownArchitectureNamesWhatWasFound) {
    json j = json::parse(kQwen05B);
    j["architectures"] = {"LlamaForCausalLM"};
    j["model_type"] = "llama";
    expect_config_error(j, {"LlamaForCausalLM", "\"llama\"", "LLaDAModelLM", "DreamModel", "Qwen2ForCausalLM"});
    expect_config_error(without(without(kQwen05B, "architectures").dump().c_str(), "model_type"),
                        {"unsupported model", "(none)"});
}

TEST(ModelConfig, ArchitectureAndModelTypeMustAgree) {
    expect_config_error(with(kLlada8B, "model_type", "qwen2"), {"\"LLaDAModelLM\"", "\"qwen2\"", "disagree"});
}

TEST(ModelConfig, MalformedJson) {
    expect_error([] { parse_model_config("{\"d_model\": ", "x/config.json"); }, {"x/config.json: not valid JSON"});
    expect_error([] { parse_model_config("[1, 2]", "x/config.json"); }, {"x/config.json: expected a JSON object"});
    expect_error([] { parse_model_config("", "x/config.json"); }, {"x/config.json: not valid JSON"});
}

TEST(ModelConfig, MissingAndMistypedFields) {
    expect_config_error(without(kLlada8B, "d_model"), {"required field \"d_model\" is missing"});
    expect_config_error(without(kDream7B, "hidden_size"), {"required field \"hidden_size\" is missing"});
    expect_config_error(without(kQwen05B, "vocab_size"), {"required field \"vocab_size\" is missing"});
    expect_config_error(with(kLlada8B, "d_model", "4096"), {"\"d_model\" must be an integer", "\"4096\""});
    expect_config_error(with(kLlada8B, "n_layers", 32.5), {"\"n_layers\" must be an integer", "32.5"});
    expect_config_error(with(kDream7B, "num_attention_heads", nullptr), {"\"num_attention_heads\" must be an integer"});
    expect_config_error(with(kDream7B, "rope_theta", "1e6"), {"\"rope_theta\" must be a number"});
    expect_config_error(with(kQwen05B, "tie_word_embeddings", 1), {"\"tie_word_embeddings\" must be true or false"});
    expect_config_error(with(kLlada8B, "architectures", "LLaDAModelLM"), {"\"architectures\" must be a list"});
    expect_config_error(with(kLlada8B, "eos_token_id", -5), {"\"eos_token_id\" must be a non-negative integer"});
    expect_config_error(with(kLlada8B, "d_model", 1e20), {"\"d_model\" must be an integer"});
    expect_config_error(with(kLlada8B, "d_model", 9'000'000'000LL), {"\"d_model\" must be a positive integer"});
}

TEST(ModelConfig, RangeChecks) {
    expect_config_error(with(kLlada8B, "n_heads", 0), {"\"n_heads\" must be a positive integer, found 0"});
    expect_config_error(with(kDream7B, "intermediate_size", -1), {"\"intermediate_size\" must be a positive integer"});
    expect_config_error(with(kDream7B, "num_key_value_heads", 5), {"not a multiple of the number of key/value heads 5"});
    expect_config_error(with(kDream7B, "num_key_value_heads", 56), {"not a multiple"});
    expect_config_error(with(kLlada8B, "n_heads", 24), {"4096 is not divisible by the number of heads 24"});
    expect_config_error(with(kLlada8B, "rope_theta", -1.0), {"rope_theta must be a positive number"});
    expect_config_error(with(kLlada8B, "rope_theta", 0), {"rope_theta must be a positive number"});
    expect_config_error(with(kLlada8B, "rms_norm_eps", 0.0), {"rms_norm_eps must be in (0, 1)"});
    expect_config_error(with(kQwen05B, "rms_norm_eps", 1.5), {"rms_norm_eps must be in (0, 1)"});
    expect_config_error(with(kLlada8B, "embedding_size", 1000), {"embedding_size 1000 is smaller than vocab_size 126464"});
    expect_config_error(with(kQwen05B, "eos_token_id", 151936), {"eos_token_id 151936 is outside the vocabulary"});
    expect_config_error(with(kLlada8B, "pad_token_id", 126336), {"pad_token_id equals mask_token_id"});
    json odd = json::parse(kQwen05B);
    odd["head_dim"] = 63;
    expect_config_error(odd, {"head_dim 63 must be even"});
}

TEST(ModelConfig, DerivedSizesAreCheckedIn64Bit) {
    // heads x head_dim past 2^31 with everything else consistent once crashed the RoPE table.
    json wide = json::parse(kQwen05B);
    wide["head_dim"] = 1 << 28;
    expect_config_error(wide, {"heads x head_dim 3758096384 is over the limit of 1048576"});
    expect_config_error(with(kLlada8B, "mlp_hidden_size", 1 << 21), {"intermediate (FFN) size 2097152 is over the limit"});
    expect_config_error(with(kQwen05B, "max_position_embeddings", 1 << 30), {"context length 1073741824 is over the limit"});
    json big_vocab = with(kQwen05B, "vocab_size", 5000000);
    expect_config_error(big_vocab, {"vocabulary of 5000000 rows is over the limit"});
    json square = with(kQwen05B, "hidden_size", 1 << 19);
    square["num_attention_heads"] = 8;
    square["num_key_value_heads"] = 8;
    expect_config_error(square, {"a weight matrix of 524288 x", "is over the limit of 4294967296"});
    // Nesting in an extra key is refused before the JSON library sees it.
    json deep = json::parse(kLlada8B);
    const std::string text = deep.dump().substr(0, deep.dump().size() - 1) + ",\"x\":" + std::string(100000, '[') +
                             std::string(100000, ']') + "}";
    const std::string msg = expect_error([&] { parse_model_config(text, "cfg/config.json"); }, {"nested more than 64"});
    EXPECT_EQ(msg.rfind("cfg/config.json: ", 0), 0u) << msg;
}

TEST(ModelConfig, LladaOptionalFields) {
    // n_kv_heads null/absent -> n_heads; multi_query_attention -> 1 KV head.
    EXPECT_EQ(parse(with(kLlada8B, "n_kv_heads", nullptr)).n_kv_heads, 32);
    EXPECT_EQ(parse(without(kLlada8B, "n_kv_heads")).n_kv_heads, 32);
    json mqa = without(kLlada8B, "n_kv_heads");
    mqa["multi_query_attention"] = true;
    EXPECT_EQ(parse(mqa).n_kv_heads, 1);
    // mlp_hidden_size wins over mlp_ratio; without it, mlp_ratio * d_model.
    EXPECT_EQ(parse(with(kLlada8B, "mlp_ratio", 8)).d_ff, 12288);
    EXPECT_EQ(parse(with(kLlada8B, "mlp_hidden_size", nullptr)).d_ff, 4 * 4096);
    json neither = without(kLlada8B, "mlp_hidden_size");
    neither.erase("mlp_ratio");
    expect_config_error(neither, {"\"mlp_hidden_size\" (or \"mlp_ratio\") is missing"});
    // embedding rows = embedding_size when present (larger than the tokenizer vocabulary).
    json padded = with(kLlada8B, "vocab_size", 126349);
    EXPECT_EQ(parse(padded).vocab_size, 126464);
    EXPECT_EQ(parse(without(kLlada8B, "embedding_size")).vocab_size, 126464);
    // Biases and tying.
    EXPECT_TRUE(parse(with(kLlada8B, "include_qkv_bias", true)).qkv_bias);
    EXPECT_TRUE(parse(with(kLlada8B, "weight_tying", true)).tied_embeddings);
    // Optional special ids.
    EXPECT_EQ(parse(with(kLlada8B, "eot_token_id", 126348)).eot_token_id, 126348);
    EXPECT_EQ(parse(with(kLlada8B, "bos_token_id", 126080)).bos_token_id, 126080);
    EXPECT_EQ(parse(with(kLlada8B, "eos_token_id", json::array({126081, 126348}))).eos_token_id, 126081);
    EXPECT_EQ(parse(with(kLlada8B, "pad_token_id", nullptr)).pad_token_id, -1);
    // Defaults when absent.
    EXPECT_EQ(parse(without(kLlada8B, "rope_theta")).rope_theta, 10000.0);
    EXPECT_EQ(parse(without(kLlada8B, "rms_norm_eps")).rms_eps, 1e-5);
}

TEST(ModelConfig, ExplicitHeadDim) {
    json j = json::parse(kQwen05B);
    j["head_dim"] = 128;
    const ModelConfig c = parse(j);
    EXPECT_EQ(c.head_dim, 128);
    EXPECT_EQ(c.q_dim(), 14 * 128);
    EXPECT_EQ(c.kv_dim(), 2 * 128);
}

TEST(ModelConfig, MaskTokenDefaultsOnlyForTheKnownVocabularies) {
    EXPECT_EQ(parse(without(kLlada8B, "mask_token_id")).mask_token_id, 126336);
    EXPECT_EQ(parse(without(kDream7B, "mask_token_id")).mask_token_id, 151666);
    json tiny = without(kLlada8B, "mask_token_id");
    tiny["vocab_size"] = 4096;
    tiny["embedding_size"] = 4096;
    expect_config_error(tiny, {"\"mask_token_id\" is missing", "llada diffusion model"});
    json dream_other = without(kDream7B, "mask_token_id");
    dream_other["vocab_size"] = 151936;
    expect_config_error(dream_other, {"\"mask_token_id\" is missing", "dream"});
    expect_config_error(with(kLlada8B, "mask_token_id", 200000), {"mask_token_id 200000 is outside the vocabulary"});
}

TEST(ModelConfig, UnsupportedVariantsAreRefused) {
    expect_config_error(with(kLlada8B, "block_type", "sequential"), {"unsupported block_type = \"sequential\""});
    expect_config_error(with(kLlada8B, "layer_norm_type", "default"), {"unsupported layer_norm_type"});
    expect_config_error(with(kLlada8B, "include_bias", true), {"unsupported include_bias = true"});
    expect_config_error(with(kLlada8B, "alibi", true), {"unsupported alibi = true"});
    expect_config_error(with(kLlada8B, "scale_logits", true), {"unsupported scale_logits"});
    expect_config_error(with(kDream7B, "hidden_act", "gelu"), {"unsupported hidden_act = \"gelu\""});
    expect_config_error(with(kQwen05B, "use_sliding_window", true), {"unsupported use_sliding_window = true"});
    expect_config_error(with(kQwen05B, "rope_scaling", json{{"type", "yarn"}, {"factor", 4.0}}),
                        {"unsupported rope_scaling", "yarn"});
}

TEST(ModelConfig, LoadFromFile) {
    test::TempDir dir;
    test::write_file(dir / "config.json", kDream7B);
    EXPECT_EQ(load_model_config(dir / "config.json").family, Family::Dream);
    expect_error([&] { load_model_config(dir / "missing.json"); }, {"missing.json", "cannot open"});
    test::write_file(dir / "bad.json", "{");
    expect_error([&] { load_model_config(dir / "bad.json"); }, {(dir / "bad.json").string() + ": not valid JSON"});
}

TEST(ModelConfig, RealLladaConfigFileFromTestData) {
    const ModelConfig c = load_model_config(std::string(DLM_TEST_DATA_DIR) + "/llada-8b-config.json");
    EXPECT_EQ(c.family, Family::Llada);
    EXPECT_EQ(c.mask_token_id, 126336);
    EXPECT_EQ(parameter_count(c), 8'015'581'184LL);
}

TEST(ModelConfig, ParameterCountTiedAndBiased) {
    ModelConfig c;
    c.family = Family::Qwen2;
    c.d_model = 8;
    c.n_layers = 2;
    c.n_heads = 2;
    c.n_kv_heads = 1;
    c.head_dim = 4;
    c.d_ff = 12;
    c.vocab_size = 16;
    c.qkv_bias = true;
    c.tied_embeddings = true;
    // embed 128 + per layer (norms 16 + q 64 + kv 64 + o 64 + ffn 288 + bias 16 = 512) * 2 + final 8.
    EXPECT_EQ(parameter_count(c), 128 + 2 * 512 + 8);
    c.tied_embeddings = false;
    EXPECT_EQ(parameter_count(c), 128 + 2 * 512 + 8 + 128);
}

}  // namespace
}  // namespace dlm

namespace dlm {
namespace {

// A number too large for a double is a refusal naming the file, not an escaping library
// exception (found by the config.json fuzz target).
TEST(ModelConfig, NumberOverflowIsARefusal) {
    test::expect_error([] { parse_model_config(R"({"model_type": "llada", "eos_token_id": 15e1643})", "config.json"); },
                       {"config.json"});
}

}  // namespace
}  // namespace dlm
