#pragma once
// The autoregressive verifier of Guided Diffusion (FlashDLM): a
// small causal model (qwen2 family, by default the embedded tiny-ar) reads the context (prompt +
// committed prefix) followed by the diffusion model's draft and says how long a prefix of the
// draft it agrees with.
//
// Matching rules (per draft token d, AR distribution p at the row that predicts it):
//   argmax: d is the AR argmax (ties accept);
//   topk:   d is among the k most probable AR tokens;
//   ratio:  p(d) / max p >= r.
// Tokenizer bridge: id for id when both tokenizers have the same pieces (the embedded pair);
// otherwise a lossy re-tokenisation through text (warned): the context is decoded and re-encoded,
// and each draft token becomes the AR tokens of its own text, accepted only if all of them are.
//
// The AR K/V cache keeps every position whose token did not change since the last call, so the
// committed prefix is never recomputed; the draft is verified in chunks and the forward stops at
// the first rejection. FLOPs follow the causal per-token formula (each row attends to itself and
// the keys before it) plus the LM head rows, reported separately from the diffusion model's.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "compute/backend.h"
#include "model/checkpoint.h"
#include "text/tokenizer.h"

namespace dlm {

enum class GuideMatch { Argmax, TopK, Ratio };

struct ArGuiderOptions {
    GuideMatch match = GuideMatch::Argmax;
    int top_k = 5;        // topk
    double ratio = 0.1;   // ratio
    int chunk = 32;       // draft tokens verified per AR forward (the reference's verify_batch_size)
    int threads = 0;      // CPU backend threads (0 = all cores)
};

struct GuideResult {
    int accepted = 0;     // length of the agreeing draft prefix (0..draft size)
    double flops = 0.0;   // this call, causal formula incl. LM head
    double ms = 0.0;      // wall time of this call
    int rows = 0;         // AR rows computed
};

// Causal FLOPs of computing `rows` (absolute positions, each attending to pos + 1 keys) with
// `head_rows` of them through the LM head (design.md §6's count with causal keys).
double causal_flops(const ModelConfig& c, std::span<const int32_t> rows, int head_rows);

class ArGuider {
public:
    // `ar_tokenizer` / `dlm_tokenizer` may both be null: the ids are then taken to be shared.
    // Throws dlm::Error naming the checkpoint when it is not a causal model, or has no tokenizer
    // while the DLM has one. The checkpoint may be shared (decode/guider_cache.h keeps it across
    // runs); the guider's backend and K/V cache are its own.
    ArGuider(std::shared_ptr<const Checkpoint> ar, const Tokenizer* dlm_tokenizer, ArGuiderOptions options);
    ArGuider(Checkpoint ar, const Tokenizer* dlm_tokenizer, ArGuiderOptions options)
        : ArGuider(std::make_shared<const Checkpoint>(std::move(ar)), dlm_tokenizer, options) {}

    // How many leading tokens of `draft` the guider accepts after `context` (DLM ids).
    GuideResult verify(std::span<const int32_t> context, std::span<const int32_t> draft);

    bool same_vocabulary() const { return same_vocab_; }
    const std::string& bridge_warning() const { return warning_; }  // empty when id for id
    const ModelConfig& config() const { return ar_->config(); }
    const std::filesystem::path& dir() const { return ar_->dir; }

    // Whether the matching rule accepts draft token `d` given the AR logits row.
    static bool accepts(std::span<const float> logits, int32_t d, const ArGuiderOptions& o);

private:
    bool accepts_row(int row_in_head, int32_t ar_id);
    void ensure_capacity(int n);

    std::shared_ptr<const Checkpoint> ar_;
    const Tokenizer* dlm_tok_ = nullptr;
    ArGuiderOptions o_;
    std::unique_ptr<Backend> backend_;
    std::unique_ptr<KvCache> cache_;
    int capacity_ = 0;
    std::vector<int32_t> cached_;  // tokens whose K/V in cache_ are valid, from position 0
    bool same_vocab_ = true;
    std::string warning_;
};

}  // namespace dlm
