#pragma once
// Which rows a step computes (design.md §3, §7): the baseline computes every row; SureLock skips
// locked rows, FreeCache frozen blocks, prefix caches the cached prefix.
#include <cstdint>
#include <string_view>
#include <vector>

#include "decode/step_context.h"
#include "trace/step_trace.h"

namespace dlm {

// A state change of an unmasked position that a policy asks for (lock, freeze, ...).
struct StateChange {
    int32_t pos = -1;
    PosState state = PosState::Active;
    PosEvent event = PosEvent::None;
};

class ComputePolicy {
public:
    virtual ~ComputePolicy() = default;
    virtual std::string_view name() const = 0;
    // Fills `rows` with the canvas positions to compute this step (ascending, unique). Every
    // position not listed must already have K/V in the cache.
    virtual void plan_rows(int step, const DecodeCanvas& canvas, std::vector<int32_t>& rows) = 0;
    // True when the policy needs the previous step's posteriors (KL) whatever the track_kl setting.
    virtual bool needs_posteriors() const { return false; }
    // After the step's commits and revisions, with this step's statistics (SureLock locks here).
    virtual std::vector<StateChange> after_step(const StepContext& ctx) { return {}; }
};

// The baseline: every row, every step (bit-identical to a dense forward).
class FullCompute final : public ComputePolicy {
public:
    std::string_view name() const override { return "full"; }
    void plan_rows(int step, const DecodeCanvas& canvas, std::vector<int32_t>& rows) override;
};

}  // namespace dlm
