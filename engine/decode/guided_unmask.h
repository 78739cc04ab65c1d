#pragma once
// Guided Diffusion's unmask rule (FlashDLM): the diffusion model
// drafts every masked position (its sampled token, the argmax at temperature 0); the AR guider
// scores the draft left to right after the context (prompt + committed prefix) and the longest
// agreeing prefix is committed; when the guider rejects the very first draft token, that token is
// committed anyway, so every step commits at least one. The guider's replacement tokens are never
// written (the next diffusion forward re-predicts the position).
// With eos_fill (the reference's early stop), committing EOS/EoT fills every remaining mask with
// EOS. The draft is the run of masked positions from the first one (a suffix under this rule).
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "decode/ar_guider.h"
#include "decode/unmask_policy.h"

namespace dlm {

// Why a guided step committed a position. A step's commits, in position order, are the draft
// tokens the guider agreed with, or, where it agreed with none, the first draft token alone; then,
// after a committed end of text, the EOS fill.
enum class GuidedCommitReason { Agreed, NoAgreement, EndFill };

// The reason for the `index`-th commit (0 = the first in position order) of a step whose strategy
// counters are `step_counters`; nullopt where they are not a guided step's (or predate the
// counters this reads) or the step made fewer commits.
std::optional<GuidedCommitReason> guided_commit_reason(const std::map<std::string, double>& step_counters, int index);

struct GuidedUnmaskOptions {
    int gen_length = 0;
    bool eos_fill = true;
    int32_t eos = -1;
    int32_t eot = -1;
};

class GuidedUnmask final : public UnmaskPolicy {
public:
    GuidedUnmask(std::unique_ptr<ArGuider> guider, GuidedUnmaskOptions o);
    std::string_view name() const override { return "guided"; }
    int planned_steps() const override { return o_.gen_length; }  // >= 1 commit per step
    bool done(int step, const DecodeCanvas& canvas) const override {
        return canvas.masks_left() == 0 || step >= planned_steps();
    }
    std::vector<Commit> choose(const StepContext& ctx) override;
    double guider_flops() const override { return last_.flops; }
    void add_counters(std::map<std::string, double>& counters) const override;

    const ArGuider& guider() const { return *guider_; }
    const GuideResult& last() const { return last_; }

private:
    std::unique_ptr<ArGuider> guider_;
    GuidedUnmaskOptions o_;
    GuideResult last_;
    int drafted_ = 0;
    int agreed_ = 0;             // commits the guider agreed with
    bool no_agreement_ = false;  // the first draft token went in alone
    int end_fill_ = 0;           // commits of the EOS fill
};

}  // namespace dlm
