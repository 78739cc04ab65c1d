#include "model/model_config_writer.h"

#include <nlohmann/json.hpp>

namespace dlm {

namespace {

nlohmann::ordered_json id_or_null(int id) { return id >= 0 ? nlohmann::ordered_json(id) : nlohmann::ordered_json(nullptr); }

}  // namespace

std::string model_config_json(const ModelConfig& c) {
    nlohmann::ordered_json j;
    if (c.family == Family::Llada) {
        // LLaDA's configuration_llada.py names; the fixed values are the ones the loader requires
        // (llama block, RMSNorm, SiLU, RoPE, no ALiBi / QK norm / input norm / logit scaling).
        j["architectures"] = {"LLaDAModelLM"};
        j["model_type"] = "llada";
        j["d_model"] = c.d_model;
        j["n_layers"] = c.n_layers;
        j["n_heads"] = c.n_heads;
        j["n_kv_heads"] = c.n_kv_heads;
        j["mlp_hidden_size"] = c.d_ff;
        j["mlp_ratio"] = 4;
        j["vocab_size"] = c.vocab_size;
        j["embedding_size"] = c.vocab_size;
        j["max_sequence_length"] = c.max_seq_len;
        j["rope"] = true;
        j["rope_theta"] = c.rope_theta;
        j["rope_full_precision"] = true;
        j["layer_norm_type"] = "rms";
        j["rms_norm_eps"] = c.rms_eps;
        j["layer_norm_with_affine"] = true;
        j["bias_for_layer_norm"] = false;
        j["activation_type"] = "silu";
        j["block_type"] = "llama";
        j["include_bias"] = false;
        j["include_qkv_bias"] = c.qkv_bias;
        j["weight_tying"] = c.tied_embeddings;
        j["alibi"] = false;
        j["attention_layer_norm"] = false;
        j["input_emb_norm"] = false;
        j["scale_logits"] = false;
        j["multi_query_attention"] = nullptr;
        j["mask_token_id"] = id_or_null(c.mask_token_id);
        j["eos_token_id"] = id_or_null(c.eos_token_id);
        j["pad_token_id"] = id_or_null(c.pad_token_id);
        j["precision"] = "amp_bf16";
    } else {
        const bool dream = c.family == Family::Dream;
        j["architectures"] = {dream ? "DreamModel" : "Qwen2ForCausalLM"};
        j["model_type"] = dream ? "Dream" : "qwen2";
        j["hidden_size"] = c.d_model;
        j["num_hidden_layers"] = c.n_layers;
        j["num_attention_heads"] = c.n_heads;
        j["num_key_value_heads"] = c.n_kv_heads;
        j["intermediate_size"] = c.d_ff;
        j["vocab_size"] = c.vocab_size;
        j["max_position_embeddings"] = c.max_seq_len;
        j["rope_theta"] = c.rope_theta;
        j["rms_norm_eps"] = c.rms_eps;
        j["hidden_act"] = "silu";
        j["tie_word_embeddings"] = c.tied_embeddings;
        j["use_sliding_window"] = false;
        j["torch_dtype"] = "bfloat16";
        if (dream) j["mask_token_id"] = id_or_null(c.mask_token_id);
        j["bos_token_id"] = id_or_null(c.bos_token_id);
        j["eos_token_id"] = id_or_null(c.eos_token_id);
        j["pad_token_id"] = id_or_null(c.pad_token_id);
    }
    if (c.head_dim > 0 && c.n_heads > 0 && c.head_dim * c.n_heads != c.d_model) j["head_dim"] = c.head_dim;
    return j.dump(2) + "\n";
}

}  // namespace dlm
