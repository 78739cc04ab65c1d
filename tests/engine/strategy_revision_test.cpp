// Revision counters (cover-paper.txt §4, §6.1) on constructed event sequences, checked against
// the canvas's own flip-flop detection.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "decode/decode_canvas.h"
#include "decode/revision_counters.h"
#include "util/error.h"

namespace dlm {
namespace {

using E = PosEvent;

TEST(StrategyRevisionCounters, CountsEffectiveRemasksAndFlipFlopsAtTheReUnmask) {
    RevisionCounter rc(4);
    // Step 0: positions 0..2 unmasked.
    RevisionCounts c = rc.observe(std::vector<E>{E::Unmask, E::Unmask, E::Unmask, E::None});
    EXPECT_EQ(c.remasks + c.effective_remasks + c.flipflops, 0);
    // Step 1: 0 and 1 remasked, 3 unmasked; 2 replaced.
    c = rc.observe(std::vector<E>{E::Remask, E::Remask, E::Replace, E::Unmask});
    EXPECT_EQ(c.remasks, 2);
    EXPECT_EQ(c.replaces, 1);
    EXPECT_EQ(c.effective_remasks, 0);  // not decided until the re-unmask
    // Step 2: 0 restored unchanged (flip-flop), 1 still masked, 2 kept.
    c = rc.observe(std::vector<E>{E::FlipFlop, E::None, E::Keep, E::None});
    EXPECT_EQ(c.flipflops, 1);
    EXPECT_EQ(c.keeps, 1);
    // Step 3: 1 re-unmasked to a different token: effective.
    c = rc.observe(std::vector<E>{E::None, E::Unmask, E::None, E::None});
    EXPECT_EQ(c.effective_remasks, 1);
    // Step 4: 1 remasked again and never restored.
    rc.observe(std::vector<E>{E::None, E::Remask, E::None, E::None});
    const RevisionCounts& t = rc.totals();
    EXPECT_EQ(t.remasks, 3);
    EXPECT_EQ(t.effective_remasks, 1);
    EXPECT_EQ(t.flipflops, 1);
    EXPECT_EQ(t.replaces, 1);
    EXPECT_EQ(t.keeps, 1);
    EXPECT_DOUBLE_EQ(t.effective_ratio(false), 1.0 / 3.0);
    EXPECT_DOUBLE_EQ(t.effective_ratio(true), 2.0 / 4.0);  // COVER's footnote: replaces are effective
    // A first unmask is never an effective remask.
    RevisionCounter fresh(1);
    EXPECT_EQ(fresh.observe(std::vector<E>{E::Unmask}).effective_remasks, 0);
    EXPECT_THROW(fresh.observe(std::vector<E>{E::Unmask, E::None}), Error);
    EXPECT_TRUE(std::isnan(RevisionCounts{}.effective_ratio(true)));
}

TEST(StrategyRevisionCounters, RoundTripThroughTraceCounters) {
    RevisionCounts c;
    c.remasks = 5;
    c.flipflops = 3;
    c.keeps = 2;
    std::map<std::string, double> m;
    c.add_to(m);
    c.add_to(m);
    EXPECT_EQ(m.count("replaces"), 0u);  // zero counts stay out of the trace
    const RevisionCounts back = RevisionCounts::from(m);
    EXPECT_EQ(back.remasks, 10);
    EXPECT_EQ(back.flipflops, 6);
    EXPECT_EQ(back.keeps, 4);
    EXPECT_EQ(back.effective_remasks, 0);
}

// The canvas's events on a real sequence of operations give the same counts: a remask followed
// by the same token is a flip-flop, by another token an effective remask.
TEST(StrategyRevisionCounters, AgreesWithCanvasEvents) {
    DecodeCanvas cv({1, 2}, 3, 99);
    RevisionCounter rc(cv.size());
    auto step = [&](auto ops) {
        cv.begin_step();
        ops();
        std::vector<E> ev;
        for (int p = 0; p < cv.size(); ++p) ev.push_back(cv.event(p));
        return rc.observe(ev);
    };
    step([&] { cv.unmask(2, 7, 0); cv.unmask(3, 8, 0); cv.unmask(4, 9, 0); });
    step([&] { cv.remask(2); cv.remask(3); });
    RevisionCounts c = step([&] { cv.unmask(2, 7, 2); cv.unmask(3, 5, 2); });
    EXPECT_EQ(c.flipflops, 1);
    EXPECT_EQ(c.effective_remasks, 1);
    EXPECT_EQ(cv.event(2), E::FlipFlop);
    // Replace then remask then restore the replaced token: ineffective (§6.1: compared with the
    // token right before the remask).
    step([&] { cv.replace(4, 6); });
    step([&] { cv.remask(4); });
    c = step([&] { cv.unmask(4, 6, 5); });
    EXPECT_EQ(c.flipflops, 1);
    EXPECT_EQ(rc.totals().remasks, 3);
    EXPECT_EQ(rc.totals().replaces, 1);
}

}  // namespace
}  // namespace dlm
