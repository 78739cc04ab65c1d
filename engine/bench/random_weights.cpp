#include "bench/random_weights.h"

#include <array>
#include <cmath>
#include <map>
#include <string>

#include "util/counter_rng.h"
#include "util/error.h"

namespace dlm {

RandomLladaSpec random_llada_preset(const std::string& name) {
    RandomLladaSpec s;
    if (name == "llada-8b") {
        s.d_model = 4096;
        s.n_layers = 32;
        s.n_heads = 32;
        s.d_ff = 12288;
        s.vocab_size = 126464;
        s.max_seq_len = 4096;
        s.mask_token_id = 126336;  // LLaDA-8B's config.json
        s.eos_token_id = 126081;
    } else if (name == "medium") {
        s.d_model = 2048;
        s.n_layers = 16;
        s.n_heads = 16;
        s.d_ff = 6144;
        s.vocab_size = 32768;
    } else if (name == "small") {
        // RandomLladaSpec's defaults: the forward-cpu bench model.
    } else if (name == "tiny") {
        s.d_model = 64;
        s.n_layers = 2;
        s.n_heads = 4;
        s.d_ff = 192;
        s.vocab_size = 512;
        s.max_seq_len = 1024;
    } else {
        std::string known;
        for (const std::string& n : random_llada_preset_names()) known += (known.empty() ? "" : ", ") + n;
        throw Error("unknown model dimensions '" + name + "' (presets: " + known + ")");
    }
    return s;
}

std::vector<std::string> random_llada_preset_names() { return {"llada-8b", "medium", "small", "tiny"}; }

ModelConfig random_llada_config(const RandomLladaSpec& s) {
    if (s.d_model <= 0 || s.n_layers <= 0 || s.n_heads <= 0 || s.d_ff <= 0 || s.vocab_size <= 2 ||
        s.max_seq_len <= 0 || s.d_model % s.n_heads != 0 || (s.d_model / s.n_heads) % 2 != 0)
        throw Error("random model: d_model must be a positive multiple of n_heads with an even head dimension");
    const int mask = s.mask_token_id >= 0 ? s.mask_token_id : s.vocab_size - 1;
    const int eos = s.eos_token_id >= 0 ? s.eos_token_id : s.vocab_size - 2;
    if (mask >= s.vocab_size || eos >= s.vocab_size || mask == eos)
        throw Error("random model: mask and eos ids must be distinct ids inside the vocabulary");
    ModelConfig c;
    c.family = Family::Llada;
    c.architecture = "LLaDAModelLM";
    c.d_model = s.d_model;
    c.n_layers = s.n_layers;
    c.n_heads = s.n_heads;
    c.n_kv_heads = s.n_heads;
    c.head_dim = s.d_model / s.n_heads;
    c.d_ff = s.d_ff;
    c.vocab_size = s.vocab_size;
    c.max_seq_len = s.max_seq_len;
    c.rope_theta = 500000.0;
    c.rms_eps = 1e-5;
    c.bidirectional = true;
    c.mask_token_id = mask;
    c.eos_token_id = eos;
    c.pad_token_id = eos;
    return c;
}

int64_t RandomTensor::numel() const {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    return n;
}

std::vector<RandomTensor> random_llada_tensors(const RandomLladaSpec& s) {
    const ModelConfig c = random_llada_config(s);  // validates
    const int64_t d = c.d_model, ff = c.d_ff, V = c.vocab_size;
    // Uniform spread with standard deviation 1/sqrt(fan_in): activations keep their scale.
    const float lin_d = std::sqrt(3.0f / static_cast<float>(d)), lin_ff = std::sqrt(3.0f / static_cast<float>(ff));
    std::vector<RandomTensor> t;
    auto add = [&](std::string name, std::vector<int64_t> shape, float center, float spread) {
        const uint64_t id = t.size();
        t.push_back({std::move(name), std::move(shape), center, spread, id});
    };
    add("model.transformer.wte.weight", {V, d}, 0.0f, 1.0f);
    for (int n = 0; n < c.n_layers; ++n) {
        const std::string p = "model.transformer.blocks." + std::to_string(n) + ".";
        add(p + "attn_norm.weight", {d}, 1.0f, 0.1f);
        add(p + "q_proj.weight", {d, d}, 0.0f, lin_d);
        add(p + "k_proj.weight", {d, d}, 0.0f, lin_d);
        add(p + "v_proj.weight", {d, d}, 0.0f, lin_d);
        add(p + "attn_out.weight", {d, d}, 0.0f, lin_d);
        add(p + "ff_norm.weight", {d}, 1.0f, 0.1f);
        add(p + "ff_proj.weight", {ff, d}, 0.0f, lin_d);
        add(p + "up_proj.weight", {ff, d}, 0.0f, lin_d);
        add(p + "ff_out.weight", {d, ff}, 0.0f, lin_ff);
    }
    add("model.transformer.ln_f.weight", {d}, 1.0f, 0.1f);
    add("model.transformer.ff_out.weight", {V, d}, 0.0f, lin_d);
    return t;
}

void fill_random_uniform(uint64_t seed, uint64_t rng_id, int64_t first, float center, float spread, std::span<float> out) {
    const CounterRng rng(seed, rng_stream::kStrategy);
    // fill_uniform uses both halves of each Philox block: the same draws as uniform(id, 0, i).
    std::array<double, 1024> u{};
    for (std::size_t done = 0; done < out.size();) {
        const std::size_t n = std::min(u.size(), out.size() - done);
        rng.fill_uniform(rng_id, 0, static_cast<uint64_t>(first) + done, std::span<double>(u.data(), n));
        for (std::size_t i = 0; i < n; ++i) out[done + i] = center + spread * static_cast<float>(2.0 * u[i] - 1.0);
        done += n;
    }
}

void fill_random_tensor(const RandomTensor& t, uint64_t seed, int64_t first, std::span<float> out) {
    if (first < 0 || first + static_cast<int64_t>(out.size()) > t.numel())
        throw Error("random tensor " + t.name + ": slice outside the tensor");
    fill_random_uniform(seed, t.rng_id, first, t.center, t.spread, out);
}

std::unique_ptr<OwnedModelWeights> make_random_llada_weights(const RandomLladaSpec& s) {
    auto m = std::make_unique<OwnedModelWeights>();
    m->weights.config = random_llada_config(s);
    std::map<std::string, const TensorView*> by_name;
    for (const RandomTensor& t : random_llada_tensors(s)) {
        std::vector<float>& data = m->buffers.emplace_back(static_cast<std::size_t>(t.numel()));
        fill_random_tensor(t, s.seed, 0, data);
        TensorView& v = m->views.emplace_back();
        v.name = t.name;
        v.dtype = DType::F32;
        v.shape = t.shape;
        v.data = reinterpret_cast<const std::byte*>(data.data());
        v.nbytes = data.size() * sizeof(float);
        v.file = "(in memory)";
        by_name[t.name] = &v;
    }
    ModelWeights& w = m->weights;
    const std::string root = "model.transformer.";
    w.embed = by_name.at(root + "wte.weight");
    for (int n = 0; n < s.n_layers; ++n) {
        const std::string p = root + "blocks." + std::to_string(n) + ".";
        LayerWeights l;
        l.attn_norm = by_name.at(p + "attn_norm.weight");
        l.wq = by_name.at(p + "q_proj.weight");
        l.wk = by_name.at(p + "k_proj.weight");
        l.wv = by_name.at(p + "v_proj.weight");
        l.wo = by_name.at(p + "attn_out.weight");
        l.ffn_norm = by_name.at(p + "ff_norm.weight");
        l.w_gate = by_name.at(p + "ff_proj.weight");
        l.w_up = by_name.at(p + "up_proj.weight");
        l.w_down = by_name.at(p + "ff_out.weight");
        w.layers.push_back(l);
    }
    w.final_norm = by_name.at(root + "ln_f.weight");
    w.lm_head = by_name.at(root + "ff_out.weight");
    return m;
}

}  // namespace dlm
