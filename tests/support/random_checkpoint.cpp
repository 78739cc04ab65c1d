#include "support/random_checkpoint.h"

#include <atomic>
#include <chrono>
#include <cmath>
#include <fstream>
#include <numeric>
#include <stdexcept>
#include <unistd.h>

#include "bench/random_weights.h"
#include "model/model_config_writer.h"
#include "model/weight_store.h"

namespace dlm::test {

namespace {

// Fills tensors with uniform values in [center - spread, center + spread]; each tensor gets its
// own RNG position (the index of the tensor) so adding a tensor never changes another.
class Filler {
public:
    explicit Filler(uint64_t seed) : seed_(seed) {}
    TensorData make(std::vector<int64_t> shape, DType dtype, float center, float spread) {
        TensorData t;
        t.shape = std::move(shape);
        t.dtype = dtype;
        int64_t n = 1;
        for (int64_t d : t.shape) n *= d;
        t.values.resize(static_cast<std::size_t>(n));
        fill_random_uniform(seed_, tensor_, 0, center, spread, t.values);
        ++tensor_;
        return t;
    }

private:
    uint64_t seed_;
    uint64_t tensor_ = 0;
};

}  // namespace

const std::vector<float>& RandomCheckpoint::value(const std::string& name) const {
    auto it = values.find(name);
    if (it == values.end()) throw std::out_of_range("random checkpoint has no tensor " + name);
    return it->second;
}

RandomCheckpoint write_random_checkpoint(const std::filesystem::path& dir, Family family,
                                         const RandomCheckpointOptions& o) {
    if (o.d_model % o.n_heads != 0) throw std::invalid_argument("random checkpoint: d_model % n_heads != 0");
    RandomCheckpoint ck;
    ck.dir = dir;
    ck.config_json = dir / "config.json";
    ck.weights_file = dir / "model.safetensors";

    ModelConfig& c = ck.config;
    c.family = family;
    c.architecture = family == Family::Llada ? "LLaDAModelLM" : family == Family::Dream ? "DreamModel" : "Qwen2ForCausalLM";
    c.d_model = o.d_model;
    c.n_layers = o.n_layers;
    c.n_heads = o.n_heads;
    c.n_kv_heads = o.n_kv_heads > 0 ? o.n_kv_heads : (family == Family::Llada ? o.n_heads : std::max(1, o.n_heads / 2));
    c.head_dim = o.d_model / o.n_heads;
    c.d_ff = o.d_ff;
    c.vocab_size = o.vocab_size;
    c.max_seq_len = o.max_seq_len;
    c.rope_theta = o.rope_theta;
    c.rms_eps = o.rms_eps;
    c.qkv_bias = family != Family::Llada;
    c.tied_embeddings = family == Family::Qwen2;
    c.bidirectional = family != Family::Qwen2;
    c.shifted_logits = family == Family::Dream;
    c.mask_token_id = family == Family::Qwen2 ? -1 : (o.mask_token_id >= 0 ? o.mask_token_id : o.vocab_size - 1);
    c.eos_token_id = o.eos_token_id >= 0 ? o.eos_token_id : o.vocab_size - 2;
    c.pad_token_id = c.eos_token_id;
    c.bos_token_id = family == Family::Llada ? -1 : c.eos_token_id;

    const int64_t d = c.d_model, q = c.q_dim(), kv = c.kv_dim(), ff = c.d_ff, V = c.vocab_size;
    const float lin_d = std::sqrt(3.0f / static_cast<float>(d));  // uniform spread with std 1/sqrt(fan_in)
    const float lin_q = std::sqrt(3.0f / static_cast<float>(q));
    const float lin_ff = std::sqrt(3.0f / static_cast<float>(ff));
    Filler fill(o.seed);
    auto& t = ck.tensors;
    const DType dt = o.dtype;
    if (family == Family::Llada) {
        const std::string root = "model.transformer.";
        t[root + "wte.weight"] = fill.make({V, d}, dt, 0.0f, 1.0f);
        for (int n = 0; n < c.n_layers; ++n) {
            const std::string p = root + "blocks." + std::to_string(n) + ".";
            t[p + "attn_norm.weight"] = fill.make({d}, dt, 1.0f, 0.2f);
            t[p + "q_proj.weight"] = fill.make({q, d}, dt, 0.0f, lin_d);
            t[p + "k_proj.weight"] = fill.make({kv, d}, dt, 0.0f, lin_d);
            t[p + "v_proj.weight"] = fill.make({kv, d}, dt, 0.0f, lin_d);
            t[p + "attn_out.weight"] = fill.make({d, q}, dt, 0.0f, lin_q);
            t[p + "ff_norm.weight"] = fill.make({d}, dt, 1.0f, 0.2f);
            t[p + "ff_proj.weight"] = fill.make({ff, d}, dt, 0.0f, lin_d);
            t[p + "up_proj.weight"] = fill.make({ff, d}, dt, 0.0f, lin_d);
            t[p + "ff_out.weight"] = fill.make({d, ff}, dt, 0.0f, lin_ff);
        }
        t[root + "ln_f.weight"] = fill.make({d}, dt, 1.0f, 0.2f);
        t[root + "ff_out.weight"] = fill.make({V, d}, dt, 0.0f, 2.0f * lin_d);
    } else {
        t["model.embed_tokens.weight"] = fill.make({V, d}, dt, 0.0f, 1.0f);
        for (int n = 0; n < c.n_layers; ++n) {
            const std::string p = "model.layers." + std::to_string(n) + ".";
            t[p + "input_layernorm.weight"] = fill.make({d}, dt, 1.0f, 0.2f);
            t[p + "self_attn.q_proj.weight"] = fill.make({q, d}, dt, 0.0f, lin_d);
            t[p + "self_attn.q_proj.bias"] = fill.make({q}, dt, 0.0f, 0.5f);
            t[p + "self_attn.k_proj.weight"] = fill.make({kv, d}, dt, 0.0f, lin_d);
            t[p + "self_attn.k_proj.bias"] = fill.make({kv}, dt, 0.0f, 0.5f);
            t[p + "self_attn.v_proj.weight"] = fill.make({kv, d}, dt, 0.0f, lin_d);
            t[p + "self_attn.v_proj.bias"] = fill.make({kv}, dt, 0.0f, 0.5f);
            t[p + "self_attn.o_proj.weight"] = fill.make({d, q}, dt, 0.0f, lin_q);
            t[p + "post_attention_layernorm.weight"] = fill.make({d}, dt, 1.0f, 0.2f);
            t[p + "mlp.gate_proj.weight"] = fill.make({ff, d}, dt, 0.0f, lin_d);
            t[p + "mlp.up_proj.weight"] = fill.make({ff, d}, dt, 0.0f, lin_d);
            t[p + "mlp.down_proj.weight"] = fill.make({d, ff}, dt, 0.0f, lin_ff);
        }
        t["model.norm.weight"] = fill.make({d}, dt, 1.0f, 0.2f);
        // Qwen2 ties the head to the embedding; Dream stores its own.
        if (family == Family::Dream) t["lm_head.weight"] = fill.make({V, d}, dt, 0.0f, 2.0f * lin_d);
    }
    for (const auto& [name, tensor] : t) ck.values[name] = rounded(tensor);

    std::filesystem::create_directories(dir);
    {
        std::ofstream f(ck.config_json, std::ios::trunc);
        if (!f) throw std::runtime_error("cannot write " + ck.config_json.string());
        f << model_config_json(c);
    }
    write_safetensors(ck.weights_file, t, {{"format", "pt"}});
    return ck;
}

ModelWeights load_random_checkpoint(const RandomCheckpoint& checkpoint) {
    ModelConfig config = load_model_config(checkpoint.config_json);
    return bind_weights(config, WeightStore::open(checkpoint.dir));
}

void load_random_model(RandomModel& model, Family family, const RandomCheckpointOptions& options) {
    model.ck = write_random_checkpoint(model.dir.path(), family, options);
    model.weights = load_random_checkpoint(model.ck);
}

std::vector<int32_t> pattern_canvas(int n, int vocab, uint32_t salt) {
    std::vector<int32_t> t(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i)
        t[static_cast<std::size_t>(i)] =
            static_cast<int32_t>((static_cast<uint32_t>(i) * 37u + salt * 11u + 5u) % static_cast<uint32_t>(vocab));
    return t;
}

std::vector<int32_t> row_range(int first, int count) {
    std::vector<int32_t> r(static_cast<std::size_t>(count));
    std::iota(r.begin(), r.end(), first);
    return r;
}

}  // namespace dlm::test
