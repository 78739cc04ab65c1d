#pragma once
// Fakes for the Decode* tests: a backend whose logits are a function the test chooses (so the
// decoder's decisions can be predicted exactly) and a tokenizer that names token i "t<i>".
// Statistics go through the real compute_row_stats, so sampling, suppression and KL are the
// engine's own.
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "compute/backend.h"
#include "model/model_config.h"
#include "text/tokenizer.h"
#include "util/error.h"

namespace dlm::test {

// A 32-token vocabulary: 0..27 words, 28 BOS, 29 EoT, 30 EOS, 31 mask.
inline ModelConfig fake_config(Family family = Family::Llada) {
    ModelConfig c;
    c.family = family;
    c.architecture = family == Family::Dream ? "DreamModel" : "LLaDAModelLM";
    c.d_model = 8;
    c.n_layers = 2;
    c.n_heads = 2;
    c.n_kv_heads = family == Family::Dream ? 1 : 2;
    c.head_dim = 4;
    c.d_ff = 16;
    c.vocab_size = 32;
    c.max_seq_len = 512;
    c.bos_token_id = 28;
    c.eot_token_id = 29;
    c.eos_token_id = 30;
    c.pad_token_id = 30;
    c.mask_token_id = 31;
    c.shifted_logits = family == Family::Dream;
    return c;
}

class FakeTokenizer final : public Tokenizer {
public:
    explicit FakeTokenizer(const ModelConfig& c) : c_(c) {}
    std::string kind() const override { return "fake"; }
    std::vector<int32_t> encode(std::string_view text, bool) const override {
        std::vector<int32_t> ids;
        for (unsigned char ch : text) ids.push_back(static_cast<int32_t>(ch % 28));  // ids 0..27 are words in every fake
        return ids;
    }
    std::string decode(const std::vector<int32_t>& ids, bool skip_special) const override {
        std::string out;
        for (int32_t id : ids) {
            if (skip_special && is_special(id)) continue;
            out += token_text(id);
        }
        return out;
    }
    std::string token_text(int32_t id) const override {
        if (id == c_.mask_token_id) return "<mask>";
        if (id == c_.eos_token_id) return "<eos>";
        if (id == c_.eot_token_id) return "<eot>";
        if (id == c_.bos_token_id) return "<bos>";
        return "t" + std::to_string(id) + " ";
    }
    bool is_special(int32_t id) const override {
        return id == c_.mask_token_id || id == c_.eos_token_id || id == c_.eot_token_id || id == c_.bos_token_id;
    }
    int vocab_size() const override { return c_.vocab_size; }
    std::optional<int32_t> token_id(std::string_view) const override { return std::nullopt; }

private:
    ModelConfig c_;
};

class FakeKvCache final : public KvCache {
public:
    explicit FakeKvCache(int n) : has_(static_cast<std::size_t>(n), false) {}
    int positions() const override { return static_cast<int>(has_.size()); }
    bool has(int pos) const override { return has_[static_cast<std::size_t>(pos)]; }
    void clear() override { std::fill(has_.begin(), has_.end(), false); }
    void copy_rows_from(const KvCache&, std::span<const int32_t>) override {}
    std::vector<bool> has_;
};

class FakePosteriorStore final : public PosteriorStore {
public:
    bool has(int pos) const override { return rows.count(pos) > 0; }
    void erase(int pos) override { rows.erase(pos); }
    void clear() override { rows.clear(); }
    std::map<int, std::vector<float>> rows;
};

// logits(item, canvas tokens, output row, out[V])
using LogitsFn = std::function<void(int, std::span<const int32_t>, int, std::span<float>)>;

class ScriptedBackend final : public Backend {
public:
    ScriptedBackend(ModelConfig c, LogitsFn fn) : c_(std::move(c)), fn_(std::move(fn)) {}
    std::string name() const override { return "scripted"; }
    bool supports_attention_layout() const override { return true; }  // the script sees every column
    const ModelConfig& config() const override { return c_; }
    std::unique_ptr<KvCache> make_cache(int n) override { return std::make_unique<FakeKvCache>(n); }
    std::unique_ptr<PosteriorStore> make_posterior_store(int) override {
        return std::make_unique<FakePosteriorStore>();
    }

    void forward(std::span<const ForwardItem> batch) override {
        items_.clear();
        forward_log.emplace_back();
        for (std::size_t b = 0; b < batch.size(); ++b) {
            const ForwardItem& it = batch[b];
            Item item;
            item.tokens.assign(it.tokens.begin(), it.tokens.end());
            item.head_rows.assign(it.head_rows.begin(), it.head_rows.end());
            for (int32_t r : it.rows) {
                static_cast<FakeKvCache*>(it.cache)->has_[static_cast<std::size_t>(r)] = true;
                ++rows_;
            }
            for (int32_t r : it.head_rows) {
                std::vector<float> l(static_cast<std::size_t>(c_.vocab_size), 0.f);
                fn_(static_cast<int>(b), it.tokens, r, l);
                item.logits.push_back(std::move(l));
            }
            forward_log.back().push_back(item.tokens);
            items_.push_back(std::move(item));
        }
    }

    std::vector<RowStats> row_stats(const RowStatsRequest& req) override {
        std::vector<RowStats> out;
        std::vector<float> post(static_cast<std::size_t>(c_.vocab_size));
        for (std::size_t i = 0; i < req.positions.size(); ++i) {
            const int hi = req.head_row_index[i];
            std::vector<float> l = items_.at(static_cast<std::size_t>(req.item)).logits.at(static_cast<std::size_t>(hi));
            if (req.cfg_uncond_item >= 0) {
                const auto& u = items_.at(static_cast<std::size_t>(req.cfg_uncond_item)).logits.at(static_cast<std::size_t>(hi));
                for (std::size_t v = 0; v < l.size(); ++v)
                    l[v] = u[v] + static_cast<float>(req.cfg_scale + 1.0) * (l[v] - u[v]);
            }
            auto* store = static_cast<FakePosteriorStore*>(req.posteriors);
            std::span<const float> prev;
            const int pos = req.positions[i];
            if (store && store->has(pos)) prev = store->rows[pos];
            out.push_back(compute_row_stats(l, pos, req, prev, store ? std::span<float>(post) : std::span<float>()));
            if (store && req.update_posteriors) store->rows[pos] = post;
        }
        return out;
    }

    std::vector<float> logits(int item, int head_row_index) const override {
        return items_.at(static_cast<std::size_t>(item)).logits.at(static_cast<std::size_t>(head_row_index));
    }
    std::vector<float> attention_lse(int) const override { return {}; }
    uint64_t rows_computed() const override { return rows_; }

    // Per forward call, per batch item, the tokens the item was run on.
    std::vector<std::vector<std::vector<int32_t>>> forward_log;
    const std::vector<int32_t>& last_head_rows(int item = 0) const {
        return items_.at(static_cast<std::size_t>(item)).head_rows;
    }

private:
    struct Item {
        std::vector<int32_t> tokens;
        std::vector<int32_t> head_rows;
        std::vector<std::vector<float>> logits;
    };
    ModelConfig c_;
    LogitsFn fn_;
    std::vector<Item> items_;
    uint64_t rows_ = 0;
};

// Row r prefers token (r * 7 + 3) % 28 with a margin that varies by row, so confidences differ.
inline void varied_logits(int, std::span<const int32_t>, int row, std::span<float> out) {
    for (std::size_t v = 0; v < out.size(); ++v) out[v] = 0.1f * static_cast<float>((v * 5 + static_cast<std::size_t>(row)) % 7);
    out[static_cast<std::size_t>((row * 7 + 3) % 28)] = 2.0f + 0.37f * static_cast<float>((row * 11) % 9);
}

inline std::vector<int32_t> fake_prompt(int n) {
    std::vector<int32_t> p{28};
    for (int i = 1; i < n; ++i) p.push_back((i * 5) % 28);
    return p;
}

}  // namespace dlm::test
