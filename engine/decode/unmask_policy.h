#pragma once
// Which masked positions to commit in a step, and with which tokens (design.md §7). The reference
// samplers (LladaUnmask, DreamUnmask) implement it; Fast-dLLM threshold, guided prefix and the
// like are further implementations.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "decode/step_context.h"

namespace dlm {

struct Commit {
    int32_t pos = -1;    // canvas position (masked before the step)
    int32_t token = -1;  // token written there
};

class UnmaskPolicy {
public:
    virtual ~UnmaskPolicy() = default;
    virtual std::string_view name() const = 0;
    // Steps the schedule plans (a dynamic policy returns an upper bound).
    virtual int planned_steps() const = 0;
    // True when no further step should run. `step` = steps already done.
    virtual bool done(int step, const DecodeCanvas& canvas) const { return step >= planned_steps(); }
    // Semi-autoregressive block of a step (0 without blocks).
    virtual int block_of_step(int step) const { return 0; }
    // Commits of this step: distinct, currently masked positions.
    virtual std::vector<Commit> choose(const StepContext& ctx) = 0;
    // Work of the last choose() outside the diffusion model (Guided Diffusion's AR verifier):
    // its FLOPs (StepTrace::guider_flops) and counters for the step's trace.
    virtual double guider_flops() const { return 0.0; }
    virtual void add_counters(std::map<std::string, double>& counters) const {}
};

}  // namespace dlm
