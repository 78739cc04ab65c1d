// Revision counters (the COVER paper, §4, §6.1) on constructed event sequences, checked against
// the canvas's own flip-flop detection.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "decode/decode_canvas.h"
#include "decode/revision_counters.h"
#include "decode/saber_revision.h"
#include "decode/strategy.h"
#include "support/strategy_test_support.h"
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

// Saber remasks this step's own commits: the re-unmask is judged before the remask overwrites
// the position's event, so no remask is left unresolved.
TEST(StrategyRevisionCounters, CommitThenRemaskInOneStepIsCountedTwice) {
    DecodeCanvas cv({1}, 1, 99);
    RevisionCounter rc(cv.size());
    auto events = [&] {
        std::vector<E> ev;
        for (int p = 0; p < cv.size(); ++p) ev.push_back(cv.event(p));
        return ev;
    };
    cv.begin_step();
    cv.unmask(1, 7, 0);
    rc.observe(events());
    cv.begin_step();
    cv.remask(1);
    rc.observe(events());
    cv.begin_step();
    cv.unmask(1, 7, 2);  // flip-flop ...
    rc.observe_commits(events());
    cv.remask(1);        // ... remasked again in the same step
    rc.observe_revisions(events());
    cv.begin_step();
    cv.unmask(1, 8, 3);  // effective
    rc.observe(events());
    EXPECT_EQ(rc.totals().remasks, 2);
    EXPECT_EQ(rc.totals().flipflops, 1);
    EXPECT_EQ(rc.totals().effective_remasks, 1);
}

// --- Saber ----------------------------------------------------

TEST(StrategySaber, BacktrackCountFollowsTheReference) {
    EXPECT_EQ(SaberRevision::backtrack_count(2, 2), 1);   // max(1, 1), cap 1
    EXPECT_EQ(SaberRevision::backtrack_count(2, 1), 0);   // cap fix - 1 = 0: net progress >= 1
    EXPECT_EQ(SaberRevision::backtrack_count(2, 17), 3);  // ceil(17/8) = 3
    EXPECT_EQ(SaberRevision::backtrack_count(6, 4), 3);   // floor(6/2) = 3, cap 3
    EXPECT_EQ(SaberRevision::backtrack_count(6, 3), 2);   // capped at fix - 1
}

TEST(StrategySaber, RemasksFollowTheRuleAndTheRunCompletes) {
    for (Family family : {Family::Llada, Family::Dream}) {
        auto m = test::make_strategy_model(family);
        DecodeSettings s = test::strategy_settings("saber", 24, 24, 8);
        s.params["saber.n"] = "3";
        const test::StrategyRun r = test::run_strategy(*m, s, 6);
        const int mask = m->config().mask_token_id;
        ASSERT_FALSE(r.steps.empty());
        std::vector<int32_t> token(static_cast<std::size_t>(24), mask);
        long long remasks = 0;
        for (const StepTrace& st : r.steps) {
            int unmasked = 0, remasked = 0;
            for (const PositionTrace& pt : st.positions) {
                const auto i = static_cast<std::size_t>(pt.pos);
                if (pt.event == PosEvent::Unmask || pt.event == PosEvent::FlipFlop) {
                    ++unmasked;
                    EXPECT_EQ(token[i], mask);
                    if (pt.event == PosEvent::FlipFlop) EXPECT_NE(pt.token, mask);
                }
                if (pt.event == PosEvent::Remask) {
                    ++remasked;
                    EXPECT_EQ(pt.state, PosState::Masked);
                    EXPECT_EQ(pt.token, mask);  // a remasked position really is masked again
                }
                EXPECT_TRUE(pt.event != PosEvent::Replace && pt.event != PosEvent::Keep);
                token[i] = pt.token;
            }
            // Commits hidden by a same-step remask are in newly_unmasked but show the remask event.
            EXPECT_GE(st.newly_unmasked, unmasked);
            const int fix = st.newly_unmasked;
            EXPECT_LE(remasked, SaberRevision::backtrack_count(3, fix)) << "step " << st.step;
            EXPECT_GE(fix - remasked, 1) << "no net progress at step " << st.step;
            const auto it = st.counters.find("remasks");
            EXPECT_EQ(it == st.counters.end() ? 0 : static_cast<int>(it->second), remasked);
            remasks += remasked;
        }
        for (int32_t t : token) EXPECT_NE(t, mask);
        EXPECT_GT(remasks, 0) << family_name(family) << ": Saber never backtracked";
    }
}

TEST(StrategySaber, Registry) {
    const ModelConfig c = test::fake_config();
    DecodeSettings s;
    s.strategy = "saber";
    s.gen_length = 32;
    s.steps = 32;
    Strategy st = make_strategy(s, c, 4);
    EXPECT_EQ(st.unmask->name(), "saber");
    EXPECT_EQ(st.revision->name(), "saber");
    EXPECT_EQ(st.unmask->planned_steps(), 1024);
    s.params["saber.block_length"] = "5";  // does not divide 32
    EXPECT_THROW(make_strategy(s, c, 4), Error);
    s.params.erase("saber.block_length");
    s.params["saber.n"] = "0";
    EXPECT_THROW(make_strategy(s, c, 4), Error);
}

}  // namespace
}  // namespace dlm
