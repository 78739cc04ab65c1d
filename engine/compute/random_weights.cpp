#include "compute/random_weights.h"

#include <cmath>
#include <string>

#include "util/counter_rng.h"
#include "util/error.h"

namespace dlm {

std::unique_ptr<OwnedModelWeights> make_random_llada_weights(const RandomLladaSpec& s) {
    if (s.d_model <= 0 || s.n_layers <= 0 || s.n_heads <= 0 || s.d_ff <= 0 || s.vocab_size <= 0 ||
        s.d_model % s.n_heads != 0 || (s.d_model / s.n_heads) % 2 != 0)
        throw Error("random model: d_model must be a positive multiple of n_heads with an even head dimension");
    auto m = std::make_unique<OwnedModelWeights>();
    ModelConfig& c = m->weights.config;
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
    c.mask_token_id = s.vocab_size - 1;
    c.eos_token_id = s.vocab_size - 2;

    const CounterRng rng(s.seed, rng_stream::kStrategy);
    uint64_t index = 0;
    auto tensor = [&](const std::string& name, std::vector<int64_t> shape, float center, float spread) {
        int64_t n = 1;
        for (int64_t d : shape) n *= d;
        std::vector<float>& data = m->buffers.emplace_back(static_cast<std::size_t>(n));
        const uint64_t id = index++;
        for (int64_t i = 0; i < n; ++i)
            data[static_cast<std::size_t>(i)] =
                center + spread * static_cast<float>(2.0 * rng.uniform(id, 0, static_cast<uint64_t>(i)) - 1.0);
        TensorView& v = m->views.emplace_back();
        v.name = name;
        v.dtype = DType::F32;
        v.shape = std::move(shape);
        v.data = reinterpret_cast<const std::byte*>(data.data());
        v.nbytes = data.size() * sizeof(float);
        v.file = "(in memory)";
        return &v;
    };
    const int64_t d = s.d_model, ff = s.d_ff, V = s.vocab_size;
    const float lin_d = std::sqrt(3.0f / static_cast<float>(d)), lin_ff = std::sqrt(3.0f / static_cast<float>(ff));
    ModelWeights& w = m->weights;
    w.embed = tensor("model.transformer.wte.weight", {V, d}, 0.0f, 1.0f);
    for (int n = 0; n < s.n_layers; ++n) {
        const std::string p = "model.transformer.blocks." + std::to_string(n) + ".";
        LayerWeights l;
        l.attn_norm = tensor(p + "attn_norm.weight", {d}, 1.0f, 0.1f);
        l.wq = tensor(p + "q_proj.weight", {d, d}, 0.0f, lin_d);
        l.wk = tensor(p + "k_proj.weight", {d, d}, 0.0f, lin_d);
        l.wv = tensor(p + "v_proj.weight", {d, d}, 0.0f, lin_d);
        l.wo = tensor(p + "attn_out.weight", {d, d}, 0.0f, lin_d);
        l.ffn_norm = tensor(p + "ff_norm.weight", {d}, 1.0f, 0.1f);
        l.w_gate = tensor(p + "ff_proj.weight", {ff, d}, 0.0f, lin_d);
        l.w_up = tensor(p + "up_proj.weight", {ff, d}, 0.0f, lin_d);
        l.w_down = tensor(p + "ff_out.weight", {d, ff}, 0.0f, lin_ff);
        w.layers.push_back(l);
    }
    w.final_norm = tensor("model.transformer.ln_f.weight", {d}, 1.0f, 0.1f);
    w.lm_head = tensor("model.transformer.ff_out.weight", {V, d}, 0.0f, lin_d);
    return m;
}

}  // namespace dlm
