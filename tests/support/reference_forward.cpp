#include "support/reference_forward.h"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace dlm::test {

namespace {

using Vec = std::vector<double>;
using Mat = std::vector<Vec>;  // [row][feature]

struct Names {
    std::string embed, final_norm, head;
    std::string attn_norm, q, k, v, o, ffn_norm, gate, up, down, q_bias, k_bias, v_bias;
};

Names layer_names(const ModelConfig& c, int layer) {
    Names n;
    if (c.family == Family::Llada) {
        const std::string b = "model.transformer.blocks." + std::to_string(layer) + ".";
        n.attn_norm = b + "attn_norm.weight";
        n.q = b + "q_proj.weight";
        n.k = b + "k_proj.weight";
        n.v = b + "v_proj.weight";
        n.o = b + "attn_out.weight";
        n.ffn_norm = b + "ff_norm.weight";
        n.gate = b + "ff_proj.weight";
        n.up = b + "up_proj.weight";
        n.down = b + "ff_out.weight";
        if (c.qkv_bias) {
            n.q_bias = b + "q_proj.bias";
            n.k_bias = b + "k_proj.bias";
            n.v_bias = b + "v_proj.bias";
        }
        n.embed = "model.transformer.wte.weight";
        n.final_norm = "model.transformer.ln_f.weight";
        n.head = c.tied_embeddings ? n.embed : "model.transformer.ff_out.weight";
    } else {
        const std::string b = "model.layers." + std::to_string(layer) + ".";
        n.attn_norm = b + "input_layernorm.weight";
        n.q = b + "self_attn.q_proj.weight";
        n.k = b + "self_attn.k_proj.weight";
        n.v = b + "self_attn.v_proj.weight";
        n.q_bias = b + "self_attn.q_proj.bias";
        n.k_bias = b + "self_attn.k_proj.bias";
        n.v_bias = b + "self_attn.v_proj.bias";
        n.o = b + "self_attn.o_proj.weight";
        n.ffn_norm = b + "post_attention_layernorm.weight";
        n.gate = b + "mlp.gate_proj.weight";
        n.up = b + "mlp.up_proj.weight";
        n.down = b + "mlp.down_proj.weight";
        n.embed = "model.embed_tokens.weight";
        n.final_norm = "model.norm.weight";
        n.head = c.tied_embeddings ? n.embed : "lm_head.weight";
    }
    return n;
}

// y = W x (+ b) with W stored [out][in] row-major.
Vec linear(const std::vector<float>& w, const Vec& x, int out, const std::vector<float>* bias) {
    const std::size_t in = x.size();
    Vec y(static_cast<std::size_t>(out), 0.0);
    for (int o = 0; o < out; ++o) {
        double s = 0.0;
        for (std::size_t i = 0; i < in; ++i) s += static_cast<double>(w[o * in + i]) * x[i];
        y[o] = s + (bias ? static_cast<double>((*bias)[o]) : 0.0);
    }
    return y;
}

Vec rms_norm(const Vec& x, const std::vector<float>& weight, double eps) {
    double mean_sq = 0.0;
    for (double a : x) mean_sq += a * a;
    mean_sq /= static_cast<double>(x.size());
    const double r = 1.0 / std::sqrt(mean_sq + eps);
    Vec y(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) y[i] = x[i] * r * weight[i];
    return y;
}

// Rotary embedding as in HF: q' = q cos + rotate_half(q) sin with rotate_half([a, b]) = [-b, a]
// over each head's halves; the angle of pair i is pos / theta^(2i / head_dim).
void rope(Vec& x, int heads, int head_dim, int pos, double theta) {
    const int half = head_dim / 2;
    for (int h = 0; h < heads; ++h) {
        double* v = x.data() + static_cast<std::size_t>(h) * head_dim;
        for (int i = 0; i < half; ++i) {
            const double angle = pos / std::pow(theta, 2.0 * i / head_dim);
            const double a = v[i], b = v[i + half];
            v[i] = a * std::cos(angle) - b * std::sin(angle);
            v[i + half] = b * std::cos(angle) + a * std::sin(angle);
        }
    }
}

double silu(double a) { return a / (1.0 + std::exp(-a)); }

}  // namespace

ReferenceOutput reference_forward(const RandomCheckpoint& ck, std::span<const int32_t> tokens,
                                  const ReferenceOverride* ovr, const ReferenceLayout* layout) {
    const ModelConfig& c = ck.config;
    const int n = static_cast<int>(tokens.size());
    const int d = c.d_model, H = c.n_heads, Hkv = c.n_kv_heads, hd = c.head_dim, ff = c.d_ff, V = c.vocab_size;
    const int kvd = Hkv * hd;
    const Names top = layer_names(c, 0);

    if (layout && !layout->position_ids.empty() && layout->position_ids.size() != static_cast<std::size_t>(n))
        throw std::invalid_argument("reference_forward: position ids of another length than the canvas");
    if (layout && !layout->visible.empty() && layout->visible.size() != static_cast<std::size_t>(n) * n)
        throw std::invalid_argument("reference_forward: visibility matrix is not n x n");
    auto position = [&](int i) { return layout && !layout->position_ids.empty() ? layout->position_ids[i] : i; };
    auto sees = [&](int i, int j) {
        return !layout || layout->visible.empty() || layout->visible[static_cast<std::size_t>(i) * n + j] != 0;
    };
    std::vector<bool> overridden(static_cast<std::size_t>(n), false);
    if (ovr)
        for (int32_t p : ovr->positions) overridden.at(static_cast<std::size_t>(p)) = true;

    ReferenceOutput out;
    out.n = n;
    out.vocab = V;
    out.heads = H;

    Mat x(static_cast<std::size_t>(n), Vec(static_cast<std::size_t>(d)));
    const auto& embed = ck.value(top.embed);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < d; ++j) x[i][j] = embed[static_cast<std::size_t>(tokens[i]) * d + j];

    for (int layer = 0; layer < c.n_layers; ++layer) {
        const Names nm = layer_names(c, layer);
        const std::vector<float>* bq = nm.q_bias.empty() ? nullptr : &ck.value(nm.q_bias);
        const std::vector<float>* bk = nm.k_bias.empty() ? nullptr : &ck.value(nm.k_bias);
        const std::vector<float>* bv = nm.v_bias.empty() ? nullptr : &ck.value(nm.v_bias);
        Mat q(n), k(n), v(n);
        for (int i = 0; i < n; ++i) {
            const Vec h = rms_norm(x[i], ck.value(nm.attn_norm), c.rms_eps);
            q[i] = linear(ck.value(nm.q), h, H * hd, bq);
            k[i] = linear(ck.value(nm.k), h, kvd, bk);
            v[i] = linear(ck.value(nm.v), h, kvd, bv);
            rope(q[i], H, hd, position(i), c.rope_theta);
            rope(k[i], Hkv, hd, position(i), c.rope_theta);
        }
        Vec kflat, vflat, lse(static_cast<std::size_t>(n) * H);
        for (int i = 0; i < n; ++i) {
            kflat.insert(kflat.end(), k[i].begin(), k[i].end());
            vflat.insert(vflat.end(), v[i].begin(), v[i].end());
        }
        out.k.push_back(kflat);
        out.v.push_back(vflat);

        for (int i = 0; i < n; ++i) {
            Vec attn(static_cast<std::size_t>(H) * hd, 0.0);
            for (int h = 0; h < H; ++h) {
                const int g = h / (H / Hkv);  // query head h reads K/V head g
                // Which key/value each column contributes for this query.
                auto key = [&](int j) -> const double* {
                    if (overridden[j] && !(ovr->self_sees_fresh && j == i + ovr->verifier_offset))
                        return ovr->k[layer].data() + static_cast<std::size_t>(j) * kvd + g * hd;
                    return k[j].data() + g * hd;
                };
                auto value = [&](int j) -> const double* {
                    if (overridden[j] && !(ovr->self_sees_fresh && j == i + ovr->verifier_offset))
                        return ovr->v[layer].data() + static_cast<std::size_t>(j) * kvd + g * hd;
                    return v[j].data() + g * hd;
                };
                const int last = c.bidirectional ? n - 1 : i;
                Vec s(static_cast<std::size_t>(last) + 1);
                double mx = -std::numeric_limits<double>::infinity();
                for (int j = 0; j <= last; ++j) {
                    if (!sees(i, j)) continue;
                    const double* kj = key(j);
                    double dotp = 0.0;
                    for (int t = 0; t < hd; ++t) dotp += q[i][h * hd + t] * kj[t];
                    s[j] = dotp / std::sqrt(static_cast<double>(hd));
                    mx = std::max(mx, s[j]);
                }
                double z = 0.0;
                for (int j = 0; j <= last; ++j)
                    if (sees(i, j)) z += std::exp(s[j] - mx);
                lse[static_cast<std::size_t>(i) * H + h] = mx + std::log(z);
                for (int j = 0; j <= last; ++j) {
                    if (!sees(i, j)) continue;
                    const double p = std::exp(s[j] - mx) / z;
                    const double* vj = value(j);
                    for (int t = 0; t < hd; ++t) attn[h * hd + t] += p * vj[t];
                }
            }
            const Vec o = linear(ck.value(nm.o), attn, d, nullptr);
            for (int j = 0; j < d; ++j) x[i][j] += o[j];
        }
        out.lse.push_back(lse);

        for (int i = 0; i < n; ++i) {
            const Vec h = rms_norm(x[i], ck.value(nm.ffn_norm), c.rms_eps);
            Vec g = linear(ck.value(nm.gate), h, ff, nullptr);
            const Vec u = linear(ck.value(nm.up), h, ff, nullptr);
            for (int j = 0; j < ff; ++j) g[j] = silu(g[j]) * u[j];
            const Vec down = linear(ck.value(nm.down), g, d, nullptr);
            for (int j = 0; j < d; ++j) x[i][j] += down[j];
        }
    }

    out.logits.resize(static_cast<std::size_t>(n) * V);
    for (int i = 0; i < n; ++i) {
        const Vec h = rms_norm(x[i], ck.value(top.final_norm), c.rms_eps);
        const Vec l = linear(ck.value(top.head), h, V, nullptr);
        for (int t = 0; t < V; ++t) out.logits[static_cast<std::size_t>(i) * V + t] = l[t];
    }
    return out;
}

}  // namespace dlm::test
