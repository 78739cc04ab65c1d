#pragma once
// SureLock (the SureLock paper, Algorithm 1, §2, App. F, M): once a
// position's raw posterior has stabilised (step KL D = KL(p_t || p_{t-1}) <= epsilon, optionally
// only within the top-m% most confident candidates) the position is locked for good: its row
// leaves `rows` (no Q projection, attention or FFN, no LM head row), the K/V it wrote in its last
// computed step stay in the cache for every other query, and its posterior stays frozen (the
// posterior store is not updated for it any more).
//
// Choices where the paper is silent or ambiguous (all documented in docs and tests):
// * Every position starts active, prompt included (Algorithm 1: lock = 0 for all N; the paper's
//   FLOPs ratio counts M_t over prompt + generation). Prompt positions are locked by the KL of
//   their own posterior like any other unmasked position; the canvas shows them as "prompt", the
//   counters count them.
// * Candidate set Z_t = active AND unmasked (Algorithm 1, line 20) AND revealed before this step:
//   a position revealed in step t was a [MASK] input in step t's forward, so its cached K/V would
//   encode the mask, not its token. It becomes a candidate from step t + 1 on, when its row has
//   been computed with its token.
// * The confidence gate's percentile runs over Z_t by default (Algorithm 1, line 21; §2.2's text
//   says "among active tokens": gate_set = active selects that reading). The percentile is
//   numpy's linear interpolation; m = 0 lets no position pass (locking off), m >= 100 turns the
//   gate off (every candidate passes).
// * epsilon = 0 disables locking outright (a computed KL can round to <= 0 for identical rows).
// * Shifted logits (Dream): position i's posterior comes from row i - 1. A row is skipped only
//   when its own position AND the position it predicts are locked, so an active position never
//   loses its statistics; position 0 (no predicting row) is never locked.
// * Optional budgeted unlocking (App. M): every P steps the locked rows are recomputed as a probe
//   (their K/V are refreshed in the cache by that forward, so the probe is also a refresh); a
//   locked position unlocks when proxy uncertainty > theta_t AND drift KL > epsilon_unlock AND
//   more than D_interval steps passed since it locked (the formula's conjunction; the text says
//   "any"). After an unlock it may not re-lock for D_cool steps and then needs KL <= rho*epsilon.
#include <cstdint>
#include <memory>
#include <vector>

#include "decode/compute_policy.h"

namespace dlm {

enum class SureLockGateSet { Candidates, Active };

struct SureLockUnlockOptions {
    bool enabled = false;
    int period = 8;            // P: probe every P steps
    double epsilon = 5e-2;     // epsilon_unlock: drift threshold
    int interval = 4;          // D_interval: steps a lock must last before it can be released
    int cooldown = 4;          // D_cool: steps before an unlocked position may lock again
    double rho = 0.5;          // re-lock needs KL <= rho * epsilon
};

struct SureLockOptions {
    double epsilon = 5e-3;     // paper: 5e-3 for runtime (Exp. 4), 5e-4 / 5e-3 for quality
    double gate_percent = 20;  // m; paper default 20%
    SureLockGateSet gate_set = SureLockGateSet::Candidates;
    bool shifted_logits = false;
    SureLockUnlockOptions unlock;
};

// The m-th percentile of `values` with numpy's linear interpolation (values are reordered).
double percentile_linear(std::vector<double>& values, double percent);

class SureLockCompute final : public ComputePolicy {
public:
    // `inner` plans the rows of the positions not locked (full compute, FreeCache, selection).
    SureLockCompute(SureLockOptions options, std::unique_ptr<ComputePolicy> inner);
    std::string_view name() const override { return name_; }
    void plan_rows(int step, const DecodeCanvas& canvas, std::vector<int32_t>& rows) override;
    bool needs_posteriors() const override { return true; }
    std::vector<StateChange> after_step(const StepContext& ctx) override;
    bool wants_stats(int pos, const DecodeCanvas& canvas) const override;
    // The lock test reads the KL of unmasked positions only (Z_t), the unlock test that of locked
    // ones: a masked position's KL is never read.
    bool wants_kl(int pos, const DecodeCanvas& canvas) const override {
        return !(canvas.is_generated(pos) && canvas.is_masked(pos));
    }
    void add_counters(std::map<std::string, double>& counters) const override;

    bool locked(int pos) const { return pos >= 0 && pos < int(locked_.size()) && locked_[std::size_t(pos)]; }
    int locked_count() const { return locked_total_; }
    const ComputePolicy& inner() const { return *inner_; }

private:
    void ensure_size(int n);
    bool lockable_now(int pos, int step) const;
    double threshold_theta(const StepContext& ctx, const std::vector<int32_t>& candidates) const;

    SureLockOptions o_;
    std::unique_ptr<ComputePolicy> inner_;
    std::string name_;
    std::vector<uint8_t> locked_;
    std::vector<int> lock_step_;
    std::vector<int> cooldown_until_;
    std::vector<uint8_t> strict_;  // unlocked once: re-lock needs rho * epsilon
    std::vector<uint8_t> eligible_;
    std::vector<int32_t> scratch_rows_;
    bool probing_ = false;
    int locked_total_ = 0;
    int step_locks_ = 0, step_unlocks_ = 0, step_probed_ = 0;
};

}  // namespace dlm
