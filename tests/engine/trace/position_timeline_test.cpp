// The position timeline: reveal and lock steps as of any step, from a trace's events.
#include <gtest/gtest.h>

#include "trace/position_timeline.h"

namespace dlm {
namespace {

StepTrace step_of(int k, std::vector<std::pair<PosState, PosEvent>> positions) {
    StepTrace s;
    s.step = k;
    for (std::size_t i = 0; i < positions.size(); ++i) {
        PositionTrace p;
        p.pos = static_cast<int>(i);
        p.state = positions[i].first;
        p.event = positions[i].second;
        s.positions.push_back(p);
    }
    return s;
}

constexpr auto M = PosState::Masked, A = PosState::Active, L = PosState::Locked;
constexpr auto none = PosEvent::None;

TEST(PositionTimeline, RevealLockRemaskAndUnlockAsOfAnyStep) {
    PositionTimeline t;
    t.reset(3);
    t.append(step_of(0, {{A, PosEvent::Unmask}, {M, none}, {M, none}}));
    t.append(step_of(1, {{L, PosEvent::Lock}, {A, PosEvent::Unmask}, {M, none}}));
    t.append(step_of(2, {{A, PosEvent::Unlock}, {M, PosEvent::Remask}, {A, PosEvent::Unmask}}));
    t.append(step_of(3, {{A, none}, {A, PosEvent::FlipFlop}, {A, none}}));
    EXPECT_EQ(t.steps(), 4);

    EXPECT_EQ(t.reveal_step(0), 0);
    EXPECT_EQ(t.lock_step(0, 1), 1);
    EXPECT_EQ(t.lock_step(0, 0), -1);
    EXPECT_EQ(t.lock_step(0), -1);  // unlocked at step 2

    EXPECT_EQ(t.reveal_step(1, 0), -1);
    EXPECT_EQ(t.reveal_step(1, 1), 1);
    EXPECT_EQ(t.reveal_step(1, 2), -1);  // the remask undid it
    EXPECT_EQ(t.reveal_step(1), 3);      // revealed again by the flip-flop

    EXPECT_EQ(t.reveal_step(2), 2);
    EXPECT_EQ(t.reveal_step(7), -1);  // no such position
    EXPECT_EQ(t.reveal_step(0, -1), -1);
}

// A trace that commits without an event (or goes back to masked without one) is read from the
// positions' states.
TEST(PositionTimeline, SilentChangesAreReadFromTheState) {
    PositionTimeline t;
    t.append(step_of(0, {{M, none}, {PosState::Prompt, none}}));
    t.append(step_of(1, {{A, none}, {PosState::Prompt, none}}));
    t.append(step_of(2, {{M, none}, {PosState::Prompt, none}}));
    EXPECT_EQ(t.positions(), 2);
    EXPECT_EQ(t.reveal_step(0, 1), 1);
    EXPECT_EQ(t.reveal_step(0), -1);
    EXPECT_EQ(t.reveal_step(1), -1);
}

}  // namespace
}  // namespace dlm
