#include "model/model_config.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

#include "util/json_document.h"
#include "util/error.h"
#include "util/input_limits.h"
#include "util/text_file.h"

namespace dlm {

namespace {

using nlohmann::json;

// LLaDA-8B's published vocabulary (embedding rows) and its <|mdm_mask|> id; the mask id is only
// assumed when a config omits it AND its vocabulary is exactly this one.
constexpr int kLladaVocabRows = 126464;
constexpr int kLladaMaskId = 126336;
// Dream-v0-7B: DreamConfig's default mask_token_id, for its 152064-row vocabulary (§2.1).
constexpr int kDreamVocabRows = 152064;
constexpr int kDreamMaskId = 151666;

const char* kSupported =
    "supported: LLaDAModelLM (model_type \"llada\"), DreamModel (model_type \"Dream\"), "
    "Qwen2ForCausalLM (model_type \"qwen2\")";

// Reads typed fields of one config object; every message starts with the source file name.
class Fields {
public:
    Fields(const json& j, const std::string& source) : j_(j), source_(source) {}

    [[noreturn]] void fail(const std::string& what) const { throw Error(source_ + ": " + what); }

    bool has(const char* key) const { return j_.contains(key) && !j_.at(key).is_null(); }

    const json& value(const char* key) const { return j_.at(key); }

    long long integer(const char* key) const {
        if (!j_.contains(key)) fail(std::string("required field \"") + key + "\" is missing");
        const json& v = j_.at(key);
        if (!v.is_number_integer()) {
            fail(std::string("field \"") + key + "\" must be an integer, found " + v.dump() + " (" +
                 v.type_name() + ")");
        }
        if (v.is_number_unsigned()) {
            auto u = v.get<unsigned long long>();
            if (u > static_cast<unsigned long long>(std::numeric_limits<long long>::max())) {
                fail(std::string("field \"") + key + "\" is out of range: " + v.dump());
            }
            return static_cast<long long>(u);
        }
        return v.get<long long>();
    }

    // A positive int (dimensions, counts).
    int positive(const char* key, long long max = std::numeric_limits<int>::max()) const {
        long long v = integer(key);
        if (v <= 0 || v > max) {
            fail(std::string("field \"") + key + "\" must be a positive integer" +
                 (max < std::numeric_limits<int>::max() ? " <= " + std::to_string(max) : std::string()) +
                 ", found " + std::to_string(v));
        }
        return static_cast<int>(v);
    }

    double number(const char* key, double fallback) const {
        if (!has(key)) return fallback;
        const json& v = j_.at(key);
        if (!v.is_number()) {
            fail(std::string("field \"") + key + "\" must be a number, found " + v.dump() + " (" + v.type_name() +
                 ")");
        }
        return v.get<double>();
    }

    bool boolean(const char* key, bool fallback) const {
        if (!has(key)) return fallback;
        const json& v = j_.at(key);
        if (!v.is_boolean()) {
            fail(std::string("field \"") + key + "\" must be true or false, found " + v.dump());
        }
        return v.get<bool>();
    }

    std::string string(const char* key, const std::string& fallback) const {
        if (!has(key)) return fallback;
        const json& v = j_.at(key);
        if (!v.is_string()) fail(std::string("field \"") + key + "\" must be a string, found " + v.dump());
        return v.get<std::string>();
    }

    // Token ids: absent or null -> -1. A list (as generation configs write eos_token_id) -> its first
    // entry, which is the primary id.
    int token_id(const char* key) const {
        if (!has(key)) return -1;
        const json* v = &j_.at(key);
        if (v->is_array()) {
            if (v->empty()) return -1;
            v = &v->front();
        }
        if (!v->is_number_integer() || v->get<long long>() < 0 ||
            v->get<long long>() > std::numeric_limits<int>::max()) {
            fail(std::string("field \"") + key + "\" must be a non-negative integer token id, found " + v->dump());
        }
        return static_cast<int>(v->get<long long>());
    }

    // Settings the engine does not implement: refuse them instead of computing something else.
    void require_value(const char* key, const json& expected, const std::string& why) const {
        if (!has(key)) return;
        if (j_.at(key) != expected) {
            fail("unsupported " + std::string(key) + " = " + j_.at(key).dump() + " (dlmscope implements " +
                 expected.dump() + ": " + why + ")");
        }
    }

private:
    const json& j_;
    const std::string& source_;
};

void read_special_ids(const Fields& f, ModelConfig& c) {
    c.bos_token_id = f.token_id("bos_token_id");
    c.eos_token_id = f.token_id("eos_token_id");
    c.pad_token_id = f.token_id("pad_token_id");
    c.eot_token_id = f.token_id("eot_token_id");
    c.mask_token_id = f.token_id("mask_token_id");
}

void parse_llada(const Fields& f, ModelConfig& c) {
    // The forward pass implements LLaDALlamaBlock with RMSNorm, SwiGLU and RoPE only.
    f.require_value("block_type", "llama", "separate q/k/v and gate/up projections");
    f.require_value("layer_norm_type", "rms", "RMSNorm");
    f.require_value("activation_type", "silu", "SiLU(ff_proj) * up_proj");
    f.require_value("rope", true, "rotary position embeddings");
    f.require_value("alibi", false, "RoPE only");
    f.require_value("attention_layer_norm", false, "no QK norm");
    f.require_value("input_emb_norm", false, "unscaled embeddings");
    f.require_value("include_bias", false, "no biases except optional q/k/v biases");
    if (f.has("scale_logits") && f.boolean("scale_logits", false)) {
        f.fail("unsupported scale_logits = true (dlmscope implements unscaled logits)");
    }

    c.d_model = f.positive("d_model");
    c.n_layers = f.positive("n_layers", 4096);
    c.n_heads = f.positive("n_heads");
    if (f.has("n_kv_heads")) {
        c.n_kv_heads = f.positive("n_kv_heads");
    } else {
        c.n_kv_heads = f.boolean("multi_query_attention", false) ? 1 : c.n_heads;
    }
    if (f.has("mlp_hidden_size")) {
        c.d_ff = f.positive("mlp_hidden_size");
    } else if (f.has("mlp_ratio")) {
        long long ratio = f.positive("mlp_ratio", 1024);
        long long d_ff = ratio * c.d_model;
        if (d_ff > std::numeric_limits<int>::max()) f.fail("mlp_ratio * d_model is out of range");
        c.d_ff = static_cast<int>(d_ff);
    } else {
        f.fail("required field \"mlp_hidden_size\" (or \"mlp_ratio\") is missing");
    }
    const int vocab = f.positive("vocab_size");
    c.vocab_size = vocab;
    if (f.has("embedding_size")) {
        const int rows = f.positive("embedding_size");
        if (rows < vocab) {
            f.fail("embedding_size " + std::to_string(rows) + " is smaller than vocab_size " + std::to_string(vocab));
        }
        c.vocab_size = rows;  // LLaDA pads the embedding (126464 rows); the head has as many rows
    }
    c.max_seq_len = f.positive("max_sequence_length");
    c.rope_theta = f.number("rope_theta", 10000.0);  // LLaDAConfig's default
    c.rms_eps = f.number("rms_norm_eps", 1e-5);
    c.qkv_bias = f.boolean("include_qkv_bias", false);
    c.tied_embeddings = f.boolean("weight_tying", false);
    c.bidirectional = true;
    c.shifted_logits = false;
}

// Dream and Qwen2 share the Qwen2 field names.
void parse_qwen2_style(const Fields& f, ModelConfig& c) {
    f.require_value("hidden_act", "silu", "SwiGLU MLP");
    f.require_value("use_sliding_window", false, "full attention over the whole sequence");
    if (f.has("rope_scaling")) {
        f.fail("unsupported rope_scaling = " + f.value("rope_scaling").dump() +
               " (dlmscope implements plain RoPE without scaling)");
    }
    c.d_model = f.positive("hidden_size");
    c.n_layers = f.positive("num_hidden_layers", 4096);
    c.n_heads = f.positive("num_attention_heads");
    c.n_kv_heads = f.has("num_key_value_heads") ? f.positive("num_key_value_heads") : c.n_heads;
    c.d_ff = f.positive("intermediate_size");
    c.vocab_size = f.positive("vocab_size");
    c.max_seq_len = f.positive("max_position_embeddings");
    c.rope_theta = f.number("rope_theta", 10000.0);  // Qwen2Config's default
    c.rms_eps = f.number("rms_norm_eps", 1e-6);
    c.tied_embeddings = f.boolean("tie_word_embeddings", false);
    c.qkv_bias = true;  // Qwen2 attention always has q/k/v biases (o_proj has none)
}

std::string describe_identity(const json& j) {
    std::string arch = j.contains("architectures") ? j.at("architectures").dump() : "(none)";
    std::string type = j.contains("model_type") ? j.at("model_type").dump() : "(none)";
    return "architectures " + arch + ", model_type " + type;
}

Family detect_family(const json& j, const Fields& f, std::string& architecture) {
    auto from_arch = [](const std::string& a) -> int {
        if (a == "LLaDAModelLM") return static_cast<int>(Family::Llada);
        if (a == "DreamModel") return static_cast<int>(Family::Dream);
        if (a == "Qwen2ForCausalLM") return static_cast<int>(Family::Qwen2);
        return -1;
    };
    auto from_type = [](const std::string& t) -> int {
        if (t == "llada") return static_cast<int>(Family::Llada);
        if (t == "Dream" || t == "dream") return static_cast<int>(Family::Dream);
        if (t == "qwen2") return static_cast<int>(Family::Qwen2);
        return -1;
    };
    int by_arch = -1;
    if (j.contains("architectures") && !j.at("architectures").is_null()) {
        const json& a = j.at("architectures");
        if (!a.is_array()) f.fail("field \"architectures\" must be a list of strings, found " + a.dump());
        for (const json& name : a) {
            if (!name.is_string()) f.fail("field \"architectures\" must be a list of strings, found " + a.dump());
            if (by_arch < 0) {
                by_arch = from_arch(name.get<std::string>());
                if (by_arch >= 0) architecture = name.get<std::string>();
            }
        }
    }
    const std::string model_type = f.string("model_type", "");
    const int by_type = from_type(model_type);
    if (by_arch >= 0 && by_type >= 0 && by_arch != by_type) {
        f.fail("architecture \"" + architecture + "\" and model_type \"" + model_type + "\" disagree");
    }
    if (by_arch < 0 && by_type < 0) {
        f.fail("unsupported model (" + describe_identity(j) + "); " + kSupported);
    }
    if (by_arch < 0) architecture = model_type;
    return static_cast<Family>(by_arch >= 0 ? by_arch : by_type);
}

// Limits by design on a config's dimensions (docs/limits.md).
constexpr long long kMaxModelDim = 1 << 20;
constexpr long long kMaxContext = 1 << 22;
constexpr long long kMaxMatrixElements = 1ll << 32;

void validate(const Fields& f, ModelConfig& c) {
    if (f.has("head_dim")) {
        c.head_dim = f.positive("head_dim");
    } else {
        if (c.d_model % c.n_heads != 0) {
            f.fail("hidden size " + std::to_string(c.d_model) + " is not divisible by the number of heads " +
                   std::to_string(c.n_heads) + " (and no head_dim is given)");
        }
        c.head_dim = c.d_model / c.n_heads;
    }
    if (c.head_dim % 2 != 0) f.fail("head_dim " + std::to_string(c.head_dim) + " must be even for RoPE");
    // Derived sizes in 64-bit before anything multiplies them in int: the largest published models
    // stay far below these limits (d_model 16k, d_ff 54k, 256 heads, vocab 256k, context 1M).
    const long long q_dim = 1ll * c.n_heads * c.head_dim, kv_dim = 1ll * c.n_kv_heads * c.head_dim;
    const std::pair<const char*, long long> dims[] = {{"hidden size", c.d_model},
                                                      {"intermediate (FFN) size", c.d_ff},
                                                      {"heads x head_dim", q_dim},
                                                      {"key/value heads x head_dim", kv_dim}};
    for (const auto& [name, value] : dims) {
        if (value > kMaxModelDim) {
            f.fail(std::string(name) + " " + std::to_string(value) + " is over the limit of " +
                   std::to_string(kMaxModelDim) + " (no real model is that wide)");
        }
    }
    if (c.vocab_size > limits::kMaxVocabRows) {
        f.fail("vocabulary of " + std::to_string(c.vocab_size) + " rows is over the limit of " +
               std::to_string(limits::kMaxVocabRows));
    }
    if (c.max_seq_len > kMaxContext) {
        f.fail("context length " + std::to_string(c.max_seq_len) + " is over the limit of " + std::to_string(kMaxContext));
    }
    const long long widest = std::max({q_dim, kv_dim, 1ll * c.d_ff, 1ll * c.vocab_size});
    if (1ll * c.d_model * widest > kMaxMatrixElements) {
        f.fail("a weight matrix of " + std::to_string(c.d_model) + " x " + std::to_string(widest) +
               " elements is over the limit of " + std::to_string(kMaxMatrixElements));
    }
    if (c.n_kv_heads > c.n_heads || c.n_heads % c.n_kv_heads != 0) {
        f.fail("number of attention heads " + std::to_string(c.n_heads) +
               " is not a multiple of the number of key/value heads " + std::to_string(c.n_kv_heads));
    }
    if (!std::isfinite(c.rope_theta) || c.rope_theta <= 0) {
        f.fail("rope_theta must be a positive number, found " + std::to_string(c.rope_theta));
    }
    if (!(c.rms_eps > 0 && c.rms_eps < 1)) {
        f.fail("rms_norm_eps must be in (0, 1), found " + std::to_string(c.rms_eps));
    }

    if (c.mask_token_id < 0 && c.is_diffusion()) {
        // Published configs carry it; defaults only for the exact vocabularies they belong to.
        if (c.family == Family::Llada && c.vocab_size == kLladaVocabRows) {
            c.mask_token_id = kLladaMaskId;
        } else if (c.family == Family::Dream && c.vocab_size == kDreamVocabRows) {
            c.mask_token_id = kDreamMaskId;
        } else {
            f.fail("\"mask_token_id\" is missing; a " + std::string(family_name(c.family)) +
                   " diffusion model needs the id of its mask token (add \"mask_token_id\": <id> to config.json)");
        }
    }
    const std::pair<const char*, int> ids[] = {{"mask_token_id", c.mask_token_id}, {"bos_token_id", c.bos_token_id},
                                               {"eos_token_id", c.eos_token_id},   {"pad_token_id", c.pad_token_id},
                                               {"eot_token_id", c.eot_token_id}};
    for (const auto& [name, id] : ids) {
        if (id >= c.vocab_size) {
            f.fail(std::string(name) + " " + std::to_string(id) + " is outside the vocabulary (" +
                   std::to_string(c.vocab_size) + " embedding rows)");
        }
    }
    if (c.is_diffusion() && c.pad_token_id >= 0 && c.pad_token_id == c.mask_token_id) {
        f.fail("pad_token_id equals mask_token_id (" + std::to_string(c.mask_token_id) +
               "); padding would be decoded as masks");
    }
}

}  // namespace

std::string_view family_name(Family f) {
    switch (f) {
        case Family::Llada: return "llada";
        case Family::Dream: return "dream";
        case Family::Qwen2: return "qwen2";
    }
    return "?";
}

ModelConfig parse_model_config(std::string_view json_text, const std::string& source) {
    const json j = parse_json_document(json_text, source);
    if (!j.is_object()) throw Error(source + ": expected a JSON object, found " + std::string(j.type_name()));
    Fields f(j, source);

    ModelConfig c;
    c.family = detect_family(j, f, c.architecture);
    switch (c.family) {
        case Family::Llada:
            parse_llada(f, c);
            break;
        case Family::Dream:
            parse_qwen2_style(f, c);
            c.bidirectional = true;
            c.shifted_logits = true;  // row i-1 predicts token i (§2.3)
            break;
        case Family::Qwen2:
            parse_qwen2_style(f, c);
            c.bidirectional = false;
            c.shifted_logits = false;
            break;
    }
    read_special_ids(f, c);
    validate(f, c);
    return c;
}

ModelConfig load_model_config(const std::filesystem::path& config_json) {
    return parse_model_config(read_text_file(config_json, limits::kConfigJsonBytes, "model config"),
                              config_json.string());
}

std::string model_summary(const ModelConfig& c) {
    char params[32];
    std::snprintf(params, sizeof params, "%.2fM", double(parameter_count(c)) / 1e6);
    return std::string(family_name(c.family)) + " · d=" + std::to_string(c.d_model) + " · L=" + std::to_string(c.n_layers) +
           " · H=" + std::to_string(c.n_heads) + " · V=" + std::to_string(c.vocab_size) + " · " + params + " params";
}

long long parameter_count(const ModelConfig& c) {
    const long long d = c.d_model, V = c.vocab_size, ff = c.d_ff;
    const long long q = c.q_dim(), kv = c.kv_dim();
    long long per_layer = 2 * d                   // attention and FFN norms
                          + d * q + 2 * d * kv    // q, k, v projections
                          + q * d                 // output projection
                          + 3 * d * ff;           // gate, up, down
    if (c.qkv_bias) per_layer += q + 2 * kv;
    long long total = V * d + c.n_layers * per_layer + d;
    if (!c.tied_embeddings) total += V * d;
    return total;
}

}  // namespace dlm
