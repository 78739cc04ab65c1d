#pragma once
// Fast-dLLM parallel decoding (NVlabs/Fast-dLLM llada/generate.py).
// Candidates: the masked positions of the current block (the first block that still has a mask),
// ranked by the confidence of the sampled token (LLaDA: raw p of x0; Dream: processed p).
//   threshold: commit every candidate with confidence >= tau, and always the most confident one
//              (get_transfer_index, with PR #45's "always keep one" restored);
//   factor:    with confidences sorted c_1 >= c_2 >= ... accept while c_j >= 1 - factor/(j+1),
//              the first always (get_transfer_index_dynamic); the reference's quirk is kept: if
//              the scan stops at the last candidate, that one is accepted too.
// The step count is data-dependent: a block is decoded until it has no mask; planned_steps() is
// the upper bound gen_length (each step commits at least one token). Positions that sampled
// EOS/EoT under confidence_eos_eot_inf never pass a threshold and are committed only when nothing
// else is left (the forced one).
#include "decode/block_layout.h"
#include "decode/commit_order.h"
#include "decode/decode_settings.h"
#include "decode/unmask_policy.h"

namespace dlm {

struct ThresholdUnmaskOptions {
    BlockLayout blocks;
    double tau = 0.9;     // Fast-dLLM README / evals
    double factor = 0.0;  // > 0 selects the factor rule instead of tau
    Remasking remasking = Remasking::LowConfidence;
    ConfidenceSource source = ConfidenceSource::Raw;
    EosDeferral eos;
};

class ThresholdUnmask final : public UnmaskPolicy {
public:
    explicit ThresholdUnmask(ThresholdUnmaskOptions o);
    std::string_view name() const override { return o_.factor > 0 ? "fast-dllm-factor" : "fast-dllm-threshold"; }
    int planned_steps() const override { return o_.blocks.gen_length; }
    bool done(int step, const DecodeCanvas& canvas) const override {
        return canvas.masks_left() == 0 || step >= planned_steps();
    }
    int block_of_step(int) const override { return block_; }
    std::vector<Commit> choose(const StepContext& ctx) override;

    // How many of `sorted` (descending confidences; -inf for refused candidates) the rule accepts.
    static int accept_threshold(const std::vector<double>& sorted, double tau);
    static int accept_factor(const std::vector<double>& sorted, double factor);

private:
    ThresholdUnmaskOptions o_;
    int block_ = 0;
    std::vector<RankedCandidate> scratch_;
};

}  // namespace dlm
