#include "trace/position_timeline.h"

#include <algorithm>

namespace dlm {

void PositionTimeline::reset(int positions) {
    changes_.assign(static_cast<std::size_t>(std::max(0, positions)), {});
    steps_ = 0;
}

void PositionTimeline::append(const StepTrace& step) {
    const int k = steps_++;
    for (const PositionTrace& p : step.positions) {
        if (p.pos < 0) continue;
        if (p.pos >= positions()) changes_.resize(static_cast<std::size_t>(p.pos) + 1);
        auto& list = changes_[static_cast<std::size_t>(p.pos)];
        Change now = list.empty() ? Change{} : list.back();
        const Change before = now;
        switch (p.event) {
            case PosEvent::Unmask:
            case PosEvent::FlipFlop: now.reveal = k; break;
            case PosEvent::Remask: now.reveal = now.lock = -1; break;
            case PosEvent::Lock: now.lock = k; break;
            case PosEvent::Unlock: now.lock = -1; break;
            default: break;
        }
        if (p.state == PosState::Masked) now.reveal = now.lock = -1;
        else if (now.reveal < 0 && p.state != PosState::Prompt) now.reveal = k;
        if (now.reveal != before.reveal || now.lock != before.lock) {
            now.step = k;
            list.push_back(now);
        }
    }
}

PositionTimeline::Change PositionTimeline::find(int pos, int as_of) const {
    if (pos < 0 || pos >= positions() || as_of < 0) return {};
    const auto& list = changes_[static_cast<std::size_t>(pos)];
    // The last change at or before `as_of`.
    auto it = std::upper_bound(list.begin(), list.end(), as_of, [](int s, const Change& c) { return s < c.step; });
    return it == list.begin() ? Change{} : *std::prev(it);
}

}  // namespace dlm
