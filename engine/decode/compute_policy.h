#pragma once
// Which rows a step computes (design.md §3, §7): the baseline computes every row; SureLock skips
// locked rows, FreeCache frozen blocks, prefix caches the cached prefix.
#include <cstdint>
#include <map>
#include <string>
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
    // Whether position `pos` gets statistics this step when its (shift-adjusted) row was computed
    // and went through the LM head. The default: every generated position. SureLock also asks for
    // the prompt (Algorithm 1 locks prompt positions by their own posterior KL) and refuses locked
    // positions (their posterior stays frozen).
    virtual bool wants_stats(int pos, const DecodeCanvas& canvas) const { return canvas.is_generated(pos); }
    // Whether the policy reads position `pos`'s KL to its previous posterior this step (asked only
    // of a policy that needs_posteriors, and only when the settings do not track KL for display:
    // the other positions keep their posteriors but skip the KL pass).
    virtual bool wants_kl(int pos, const DecodeCanvas& canvas) const { return true; }
    // Adds this step's strategy counters (e.g. "locks", "unlocks", "cache_refresh") to the trace.
    virtual void add_counters(std::map<std::string, double>& counters) const {}
};

// The baseline: every row, every step (bit-identical to a dense forward).
class FullCompute final : public ComputePolicy {
public:
    std::string_view name() const override { return "full"; }
    void plan_rows(int step, const DecodeCanvas& canvas, std::vector<int32_t>& rows) override;
};

}  // namespace dlm
