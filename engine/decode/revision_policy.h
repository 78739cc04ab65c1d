#pragma once
// What to re-check after the commits of a step (design.md §7): nothing (the reference samplers),
// WINO, Saber, COVER.
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "compute/backend.h"
#include "decode/shadow_columns.h"
#include "decode/step_context.h"

namespace dlm {

struct Revision {
    // Remask: back to [MASK]. Replace: a new token in place. Keep: verified and kept unchanged
    // (event keep). Seed: scheduled for verification at the next step (state seed; COVER).
    // A Replace or Keep of a seed also returns it to the active state.
    enum class Kind { Remask, Replace, Keep, Seed };
    Kind kind = Kind::Remask;
    int32_t pos = -1;
    int32_t token = -1;  // Replace only
};

// What a revision policy changes about the step's forward pass (COVER's dual view, §5.1): the
// positions fed as [MASK] although the canvas keeps their tokens, the K/V override, and whether
// the last layer's head-averaged attention is needed. Applies to batch item 0.
struct ForwardAdjustment {
    std::vector<int32_t> masked_inputs;
    const KvOverride* kv_override = nullptr;
    bool want_attention = false;
    // WINO's shadow block (decode/shadow_columns.h): the session computes the columns in the same
    // forward and hands their statistics to revise() as StepContext::shadow. At most
    // shadow_capacity() columns.
    ShadowRequest shadow;
};

class RevisionPolicy {
public:
    virtual ~RevisionPolicy() = default;
    virtual std::string_view name() const = 0;
    // Called once by the session, before the first step: the backend and the K/V cache of the
    // conditional item (COVER snapshots its seeds' K/V from it and reads attention weights).
    virtual void attach(Backend& backend, KvCache& cache) {}
    // The most shadow columns adjust_forward() will ever ask for (the session sizes its K/V cache
    // for the canvas plus these before the first step).
    virtual int shadow_capacity() const { return 0; }
    // Before the forward of `step`; `rows` are the rows the compute policy planned.
    virtual void adjust_forward(int step, const DecodeCanvas& canvas, std::span<const int32_t> rows,
                                ForwardAdjustment& adjust) {}
    // `ctx.canvas` already holds this step's commits.
    virtual std::vector<Revision> revise(const StepContext& ctx) = 0;
};

// The reference: committed tokens are never changed again.
class NoRevision final : public RevisionPolicy {
public:
    std::string_view name() const override { return "none"; }
    std::vector<Revision> revise(const StepContext&) override { return {}; }
};

}  // namespace dlm
