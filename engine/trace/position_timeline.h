#pragma once
// When each generated position was revealed and locked, as of any step of a run: the one reading
// of a trace's events that the app's grid, inspector and reveal map and the CLI's eval share.
//  * revealed at the step of its last unmask or flip-flop (or, for a trace that commits silently,
//    the first step it is seen unmasked);
//  * locked at the step of its last lock;
//  * a remask (or a position seen masked again) undoes both; an unlock undoes the lock.
#include <vector>

#include "trace/step_trace.h"

namespace dlm {

class PositionTimeline {
public:
    void reset(int positions = 0);
    // Steps arrive in order (step k is the k-th appended); positions grow with the steps.
    void append(const StepTrace& step);
    int steps() const { return steps_; }
    int positions() const { return static_cast<int>(changes_.size()); }

    // As of step `as_of` (inclusive); -1 = not revealed / not locked (or no such position).
    int reveal_step(int pos, int as_of) const { return find(pos, as_of).reveal; }
    int lock_step(int pos, int as_of) const { return find(pos, as_of).lock; }
    // As of the last step appended.
    int reveal_step(int pos) const { return reveal_step(pos, steps_ - 1); }
    int lock_step(int pos) const { return lock_step(pos, steps_ - 1); }

private:
    struct Change {
        int step = -1;
        int reveal = -1;
        int lock = -1;
    };
    Change find(int pos, int as_of) const;
    std::vector<std::vector<Change>> changes_;  // per position, in step order; only real changes
    int steps_ = 0;
};

}  // namespace dlm
