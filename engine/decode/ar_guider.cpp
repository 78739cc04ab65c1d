#include "decode/ar_guider.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>

#include "compute/cpu/cpu_backend.h"
#include "util/error.h"

namespace dlm {

double causal_flops(const ModelConfig& c, std::span<const int32_t> rows, int head_rows) {
    const double d = c.d_model, H = c.n_heads, Hkv = c.n_kv_heads, dh = c.head_dim, dff = c.d_ff, L = c.n_layers;
    const double linear = 2.0 * d * (H * dh) + 2.0 * (H * dh) * d + 4.0 * d * Hkv * dh + 6.0 * d * dff;
    double keys = 0;
    for (int32_t r : rows) keys += static_cast<double>(r) + 1.0;
    return L * (linear * static_cast<double>(rows.size()) + 4.0 * H * dh * keys) +
           2.0 * static_cast<double>(head_rows) * d * static_cast<double>(c.vocab_size);
}

namespace {

// Same pieces id for id, except that the DLM may have extra special ids (its mask) past the end.
bool same_pieces(const Tokenizer& dlm, const Tokenizer& ar, std::string* why) {
    const int vd = dlm.vocab_size(), va = ar.vocab_size();
    for (int id = va; id < vd; ++id)
        if (!dlm.is_special(id)) {
            *why = "the diffusion model's token " + std::to_string(id) + " ('" + dlm.token_text(id) +
                   "') is beyond the guider's vocabulary of " + std::to_string(va);
            return false;
        }
    for (int id = 0; id < std::min(vd, va); ++id)
        if (dlm.token_text(id) != ar.token_text(id)) {
            *why = "token " + std::to_string(id) + " is '" + dlm.token_text(id) + "' for the diffusion model but '" +
                   ar.token_text(id) + "' for the guider";
            return false;
        }
    return true;
}

}  // namespace

ArGuider::ArGuider(std::shared_ptr<const Checkpoint> ar, const Tokenizer* dlm_tokenizer, ArGuiderOptions options)
    : ar_(std::move(ar)), dlm_tok_(dlm_tokenizer), o_(options) {
    if (!ar_) throw Error("guided: no guider model");
    const ModelConfig& c = ar_->config();
    const std::string where = "guided: guider " + (ar_->dir.empty() ? std::string("model") : ar_->dir.string());
    if (c.is_diffusion() || c.bidirectional)
        throw Error(where + " is a " + std::string(family_name(c.family)) +
                    " model; the guider must be a causal (qwen2-family) language model");
    if (o_.top_k < 1) throw Error("guided: k must be at least 1");
    if (!(o_.ratio >= 0.0 && o_.ratio <= 1.0)) throw Error("guided: ratio must lie in [0, 1]");
    if (o_.chunk < 1) throw Error("guided: chunk must be at least 1");
    if (dlm_tok_ && ar_->tokenizer) {
        std::string why;
        same_vocab_ = same_pieces(*dlm_tok_, *ar_->tokenizer, &why);
        if (!same_vocab_)
            warning_ = "the guider's tokenizer differs from the diffusion model's (" + why +
                       "); drafts are re-tokenised through text, which is lossy";
    } else if (dlm_tok_ && !ar_->tokenizer) {
        throw Error(where + " has no tokenizer to bridge the vocabularies with");
    }
    CpuBackendOptions bo;
    bo.threads = o_.threads;
    backend_ = make_cpu_backend(ar_->weights, bo);
}

void ArGuider::ensure_capacity(int n) {
    if (cache_ && capacity_ >= n) return;
    capacity_ = std::max(n, capacity_ * 2);
    if (ar_->config().max_seq_len > 0) capacity_ = std::min(capacity_, std::max(n, ar_->config().max_seq_len));
    cache_ = backend_->make_cache(capacity_);
    cached_.clear();
}

bool ArGuider::accepts(std::span<const float> logits, int32_t d, const ArGuiderOptions& o) {
    if (d < 0 || static_cast<std::size_t>(d) >= logits.size()) return false;
    const float ld = logits[static_cast<std::size_t>(d)];
    switch (o.match) {
        case GuideMatch::Argmax: {
            for (float x : logits)
                if (x > ld) return false;
            return true;
        }
        case GuideMatch::TopK: {
            int greater = 0;
            for (float x : logits)
                if (x > ld && ++greater >= o.top_k) return false;
            return true;
        }
        case GuideMatch::Ratio: {
            const float mx = *std::max_element(logits.begin(), logits.end());
            return std::exp(static_cast<double>(ld) - mx) >= o.ratio;
        }
    }
    return false;
}

GuideResult ArGuider::verify(std::span<const int32_t> context, std::span<const int32_t> draft) {
    const auto t0 = std::chrono::steady_clock::now();
    GuideResult res;
    const ModelConfig& c = ar_->config();

    // The AR sequence, and per draft token the end of its AR tokens.
    std::vector<int32_t> seq, ar_draft;
    std::vector<int> group_end;
    if (same_vocab_) {
        seq.assign(context.begin(), context.end());
        ar_draft.assign(draft.begin(), draft.end());
        group_end.resize(draft.size());
        std::iota(group_end.begin(), group_end.end(), 1);
    } else {
        const Tokenizer& ar_tok = *ar_->tokenizer;
        seq = ar_tok.encode(dlm_tok_->decode(std::vector<int32_t>(context.begin(), context.end())), true);
        for (int32_t d : draft) {
            const auto g = ar_tok.encode(dlm_tok_->decode({d}), true);
            if (g.empty()) break;  // nothing the guider can judge: the draft is cut here
            ar_draft.insert(ar_draft.end(), g.begin(), g.end());
            group_end.push_back(static_cast<int>(ar_draft.size()));
        }
    }
    if (seq.empty()) throw Error("guided: the guider needs a non-empty context to score the draft");
    const int ctx = static_cast<int>(seq.size());
    if (c.max_seq_len > 0 && ctx >= c.max_seq_len)
        throw Error("guided: the context of " + std::to_string(ctx) + " tokens fills the guider's context of " +
                    std::to_string(c.max_seq_len));
    // Ids the guider has no embedding for, and tokens past its context, end the verifiable draft.
    std::size_t usable = 0;
    while (usable < ar_draft.size() && ar_draft[usable] >= 0 && ar_draft[usable] < c.vocab_size &&
           (c.max_seq_len <= 0 || ctx + static_cast<int>(usable) < c.max_seq_len))
        ++usable;
    ar_draft.resize(usable);
    seq.insert(seq.end(), ar_draft.begin(), ar_draft.end());
    ensure_capacity(static_cast<int>(seq.size()));

    std::size_t valid = 0;  // positions whose cached K/V were computed from the same tokens
    while (valid < cached_.size() && valid < seq.size() && cached_[valid] == seq[valid]) ++valid;

    int accepted_ar = 0;
    bool rejected = false;
    std::vector<int32_t> rows, head_rows;
    for (std::size_t a = 0; a < ar_draft.size() && !rejected; a += static_cast<std::size_t>(o_.chunk)) {
        const std::size_t b = std::min(ar_draft.size(), a + static_cast<std::size_t>(o_.chunk));
        const int first_head = ctx - 1 + static_cast<int>(a), end = ctx - 1 + static_cast<int>(b);
        const int start = std::min(static_cast<int>(valid), first_head);
        rows.resize(static_cast<std::size_t>(end - start));
        std::iota(rows.begin(), rows.end(), start);
        head_rows.resize(static_cast<std::size_t>(end - first_head));
        std::iota(head_rows.begin(), head_rows.end(), first_head);
        ForwardItem it;
        it.tokens = std::span<const int32_t>(seq.data(), static_cast<std::size_t>(end));
        it.rows = rows;
        it.head_rows = head_rows;
        it.cache = cache_.get();
        backend_->forward(std::span<const ForwardItem>(&it, 1));
        cached_.assign(seq.begin(), seq.begin() + end);
        valid = static_cast<std::size_t>(end);
        res.rows += static_cast<int>(rows.size());
        res.flops += causal_flops(c, rows, static_cast<int>(head_rows.size()));
        for (std::size_t j = a; j < b; ++j) {
            const std::vector<float> logits = backend_->logits(0, static_cast<int>(j - a));
            if (!accepts(logits, ar_draft[j], o_)) {
                rejected = true;
                break;
            }
            ++accepted_ar;
        }
    }
    // A draft token counts when all of its AR tokens were accepted.
    while (res.accepted < static_cast<int>(group_end.size()) && group_end[static_cast<std::size_t>(res.accepted)] <= accepted_ar)
        ++res.accepted;
    res.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return res;
}

}  // namespace dlm
