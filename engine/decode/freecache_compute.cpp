#include "decode/freecache_compute.h"

#include <algorithm>
#include <numeric>

namespace dlm {

int FreeCacheCompute::window_start(const DecodeCanvas& canvas) const {
    const int begin = blocks_.begin(blocks_.current_block(canvas));
    return std::max(0, begin - (shifted_ ? 1 : 0));
}

void FreeCacheCompute::plan_rows(int, const DecodeCanvas& canvas, std::vector<int32_t>& rows) {
    const int n = canvas.size();
    const int start = filled_ ? window_start(canvas) : 0;
    filled_ = true;
    rows.resize(static_cast<std::size_t>(n - start));
    std::iota(rows.begin(), rows.end(), start);
}

std::vector<StateChange> FreeCacheCompute::after_step(const StepContext& ctx) {
    // Positions that the next step's window leaves behind are cache-only from now on.
    std::vector<StateChange> out;
    const int start = window_start(ctx.canvas);
    for (int p = ctx.canvas.prompt_length(); p < start; ++p)
        if (ctx.canvas.state(p) == PosState::Active) out.push_back({p, PosState::Frozen, PosEvent::None});
    return out;
}

}  // namespace dlm
