#pragma once
// The architecture of a checkpoint, read from its config.json (design.md §2).
#include <filesystem>
#include <string>
#include <string_view>

namespace dlm {

enum class Family { Llada, Dream, Qwen2 };

std::string_view family_name(Family f);  // "llada", "dream", "qwen2"

struct ModelConfig {
    Family family = Family::Llada;
    std::string architecture;  // as found in config.json ("LLaDAModelLM", "DreamModel", ...)
    int d_model = 0;
    int n_layers = 0;
    int n_heads = 0;
    int n_kv_heads = 0;
    int head_dim = 0;  // d_model / n_heads unless the config says otherwise
    int d_ff = 0;
    int vocab_size = 0;  // embedding rows (LLaDA: embedding_size when present)
    int max_seq_len = 0;
    // The longest sequence (prompt + canvas) its training used, where the folder's training.json
    // records it (the embedded models do; published checkpoints do not): 0 when unknown. Past it a
    // small model's decode degrades long before max_seq_len (tiny-mdlm writes end tokens only).
    int trained_seq_len = 0;
    double rope_theta = 10000.0;
    double rms_eps = 1e-5;
    bool qkv_bias = false;
    bool tied_embeddings = false;
    bool bidirectional = true;   // llada, dream: true; qwen2: false (causal)
    bool shifted_logits = false; // dream: row i-1 predicts token i
    // Special token ids; -1 where the config has none.
    int mask_token_id = -1;
    int bos_token_id = -1;
    int eos_token_id = -1;
    int pad_token_id = -1;
    int eot_token_id = -1;

    bool is_diffusion() const { return family != Family::Qwen2; }
    int kv_dim() const { return n_kv_heads * head_dim; }
    int q_dim() const { return n_heads * head_dim; }
};

// Parses config.json text. `source` names the file in error messages.
// Throws dlm::Error for malformed JSON, missing or absurd fields, and unknown architectures
// (the message names the architecture / model_type that was found).
ModelConfig parse_model_config(std::string_view json_text, const std::string& source);
ModelConfig load_model_config(const std::filesystem::path& config_json);

// Parameter count implied by the config (embedding, layers, final norm, head if untied).
long long parameter_count(const ModelConfig& c);
// One line naming the model's shape, as the app's model panel and the server's listing show it:
// "llada · d=4096 · L=32 · H=32 · V=126464 · 8015.79M params".
std::string model_summary(const ModelConfig& c);

}  // namespace dlm
