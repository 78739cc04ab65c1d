#pragma once
// The drafting rule of the revocable decoders (the COVER paper, §3, §5.2;
// WINO's "wide in"): in the current block (the block holding the first masked position), every
// masked position whose confidence c = p(x0) under the raw posterior exceeds tau (strictly) is
// drafted with x0, at most `cap` of them (the most confident, ties by position), and the single
// most confident one when none passes, so that every step makes progress.
//   COVER: tau = tau_draft, cap = B (15 in the paper).
//   WINO:  tau = threshold, cap = min(max(int(0.7 * masks in block), 5), 20).
// x0 is the sampled token (the argmax at temperature 0, the papers' setting). Positions whose x0
// is EOS/EoT under confidence_eos_eot_inf never pass tau and are forced only when nothing else is
// left. The run ends when no mask is left or after max_steps steps.
#include <vector>

#include "decode/block_layout.h"
#include "decode/commit_order.h"
#include "decode/unmask_policy.h"

namespace dlm {

struct DraftUnmaskOptions {
    enum class Cap { Fixed, Wino };
    BlockLayout blocks;
    double tau = 0.9;
    Cap cap_rule = Cap::Fixed;
    int cap = 15;  // Fixed only
    int max_steps = 0;
    EosDeferral eos;
    std::string name = "draft";
};

class DraftUnmask final : public UnmaskPolicy {
public:
    explicit DraftUnmask(DraftUnmaskOptions o);  // throws dlm::Error on invalid options
    std::string_view name() const override { return o_.name; }
    int planned_steps() const override { return o_.max_steps; }
    bool done(int step, const DecodeCanvas& canvas) const override {
        return canvas.masks_left() == 0 || step >= o_.max_steps;
    }
    int block_of_step(int) const override { return block_; }
    std::vector<Commit> choose(const StepContext& ctx) override;

    // WINO's max_accept for a block with `masks` masked positions.
    static int wino_cap(int masks);

private:
    DraftUnmaskOptions o_;
    int block_ = 0;
    std::vector<RankedCandidate> scratch_;
};

}  // namespace dlm
