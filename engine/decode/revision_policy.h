#pragma once
// What to re-check after the commits of a step (design.md §7): nothing (the reference samplers),
// WINO, Saber, COVER.
#include <cstdint>
#include <string_view>
#include <vector>

#include "decode/step_context.h"

namespace dlm {

struct Revision {
    enum class Kind { Remask, Replace };
    Kind kind = Kind::Remask;
    int32_t pos = -1;
    int32_t token = -1;  // Replace only
};

class RevisionPolicy {
public:
    virtual ~RevisionPolicy() = default;
    virtual std::string_view name() const = 0;
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
