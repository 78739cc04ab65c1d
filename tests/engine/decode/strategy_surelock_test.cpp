// SureLock (the SureLock paper, Algorithm 1) on tiny random checkpoints through the real CPU
// backend: locking disabled reproduces the base sampler's trace; locked positions leave the
// computation for good; the rows the backend computes are the active set.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>

#include "decode/strategy.h"
#include "decode/surelock_bound.h"
#include "decode/surelock_compute.h"
#include "support/strategy_test_support.h"
#include "util/error.h"

namespace dlm {
namespace {

using test::make_strategy_model;
using test::run_strategy;
using test::strategy_settings;
using test::StrategyRun;

bool same_float(float a, float b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

void expect_same_trace(const StrategyRun& a, const StrategyRun& b) {
    ASSERT_EQ(a.steps.size(), b.steps.size());
    EXPECT_EQ(a.canvas, b.canvas);
    for (std::size_t s = 0; s < a.steps.size(); ++s) {
        const StepTrace& x = a.steps[s];
        const StepTrace& y = b.steps[s];
        EXPECT_EQ(x.block, y.block) << s;
        EXPECT_EQ(x.rows_computed, y.rows_computed) << s;
        EXPECT_EQ(x.newly_unmasked, y.newly_unmasked) << s;
        EXPECT_EQ(x.counters, y.counters) << s;
        EXPECT_EQ(x.paper_flops, y.paper_flops) << s;
        ASSERT_EQ(x.positions.size(), y.positions.size());
        for (std::size_t i = 0; i < x.positions.size(); ++i) {
            const PositionTrace& p = x.positions[i];
            const PositionTrace& q = y.positions[i];
            ASSERT_EQ(p.state, q.state) << "step " << s << " pos " << i;
            ASSERT_EQ(p.event, q.event) << "step " << s << " pos " << i;
            ASSERT_EQ(p.token, q.token) << "step " << s << " pos " << i;
            ASSERT_TRUE(same_float(p.confidence, q.confidence)) << "step " << s << " pos " << i;
            ASSERT_TRUE(same_float(p.entropy, q.entropy)) << "step " << s << " pos " << i;
            ASSERT_TRUE(same_float(p.kl, q.kl)) << "step " << s << " pos " << i;
            ASSERT_EQ(p.top.size(), q.top.size());
            for (std::size_t k = 0; k < p.top.size(); ++k) {
                ASSERT_EQ(p.top[k].id, q.top[k].id);
                ASSERT_EQ(p.top[k].p, q.top[k].p);
            }
        }
    }
}

TEST(StrategySureLock, LockingDisabledReproducesTheBaseSamplerExactly) {
    for (Family family : {Family::Llada, Family::Dream}) {
        auto m = make_strategy_model(family);
        for (double temperature : {0.0, 0.7}) {
            auto base = strategy_settings("baseline", 16, 16, family == Family::Llada ? 8 : 0, temperature);
            const StrategyRun ref = run_strategy(*m, base);
            for (const auto& [key, value] : std::map<std::string, std::string>{{"surelock.epsilon", "0"},
                                                                              {"surelock.m", "0"}}) {
                auto s = base;
                s.strategy = "surelock";
                s.params[key] = value;
                SCOPED_TRACE(key + " family " + std::string(family_name(family)) + " T " + std::to_string(temperature));
                expect_same_trace(ref, run_strategy(*m, s));
            }
        }
    }
}

// Locks with a generous threshold, then checks Algorithm 1's invariants step by step.
void check_locking_invariants(Family family, const std::string& strategy, double temperature) {
    auto m = make_strategy_model(family);
    auto s = strategy_settings(strategy, 24, 24, family == Family::Llada ? 8 : 0, temperature);
    s.params["surelock.epsilon"] = "1e6";  // every candidate passes the KL test...
    s.params["surelock.m"] = "50";         // ...half of them the gate
    const StrategyRun r = run_strategy(*m, s);
    ASSERT_FALSE(r.steps.empty());
    const int gen = 24;
    std::vector<int32_t> locked_token(gen, -1);
    std::vector<int> reveal_step(gen, -1);
    int total_locks = 0;
    int prev_active = r.n + 1;
    int prev_locked = 0;
    for (std::size_t st = 0; st < r.steps.size(); ++st) {
        const StepTrace& t = r.steps[st];
        // The rows the backend computed are exactly the rows planned, and the trace says so.
        ASSERT_EQ(r.computed[st], r.rows[st].size()) << st;
        ASSERT_EQ(static_cast<std::size_t>(t.rows_computed), r.rows[st].size()) << st;
        const std::set<int32_t> rows(r.rows[st].begin(), r.rows[st].end());
        for (const PositionTrace& p : t.positions) {
            const auto i = static_cast<std::size_t>(p.pos);
            const int canvas_pos = r.prompt_len + p.pos;
            if (p.event == PosEvent::Unmask) reveal_step[i] = static_cast<int>(st);
            if (locked_token[i] >= 0) {
                // Locked for good: same token, state locked, no statistics (frozen posterior),
                // and the row is not computed unless the next position still needs it (Dream).
                ASSERT_EQ(p.state, PosState::Locked) << "step " << st << " pos " << p.pos;
                ASSERT_EQ(p.token, locked_token[i]);
                ASSERT_TRUE(std::isnan(p.confidence));
                if (family == Family::Llada) ASSERT_EQ(rows.count(canvas_pos), 0u);
            }
            if (p.event == PosEvent::Lock) {
                ASSERT_EQ(p.state, PosState::Locked);
                // Revealed in an earlier step: its cached K/V were computed with its token.
                ASSERT_GE(reveal_step[i], 0);
                ASSERT_LT(reveal_step[i], static_cast<int>(st));
                locked_token[i] = p.token;
                ++total_locks;
            }
        }
        // The active set never grows: the locked count only rises.
        const int locked = t.counters.count("locked") ? static_cast<int>(t.counters.at("locked")) : 0;
        ASSERT_GE(locked, prev_locked) << st;
        prev_locked = locked;
        if (strategy == "surelock") {
            // Full compute inside: the computed rows only shrink...
            const int active = static_cast<int>(r.rows[st].size());
            if (st > 0) ASSERT_LE(active, prev_active) << st;
            prev_active = active;
            // ...and (no shift) every row not computed is locked, the prompt included.
            if (family == Family::Llada && st + 1 < r.steps.size())
                ASSERT_EQ(static_cast<int>(r.rows[st + 1].size()), r.n - locked) << st;
        }
    }
    EXPECT_GT(total_locks, 0);
    if (strategy == "surelock") EXPECT_LT(r.steps.back().rows_computed, r.n);  // the prompt locks too
}

TEST(StrategySureLock, LockedPositionsLeaveTheComputationForGood) {
    check_locking_invariants(Family::Llada, "surelock", 0.0);
    check_locking_invariants(Family::Llada, "surelock", 0.8);
}

TEST(StrategySureLock, ShiftedLogitsKeepEveryActivePositionsStatistics) {
    check_locking_invariants(Family::Dream, "surelock", 0.0);
    // Every masked position has statistics every step (its predicting row is never skipped),
    // so the run finishes with no mask left.
    auto m = make_strategy_model(Family::Dream);
    auto s = strategy_settings("surelock", 24, 24, 0);
    s.params["surelock.epsilon"] = "1e6";
    s.params["surelock.m"] = "100";
    const StrategyRun r = run_strategy(*m, s);
    for (const StepTrace& t : r.steps)
        for (const PositionTrace& p : t.positions)
            if (p.state == PosState::Masked) ASSERT_FALSE(std::isnan(p.confidence)) << t.step << " " << p.pos;
    for (int p = r.prompt_len; p < r.n; ++p) EXPECT_NE(r.canvas[std::size_t(p)], m->config().mask_token_id);
}

TEST(StrategySureLock, LockedRowsGetNoLmHeadRow) {
    auto m = make_strategy_model(Family::Llada);
    auto s = strategy_settings("surelock", 16, 16, 0);
    s.params["surelock.epsilon"] = "1e6";
    s.params["surelock.m"] = "100";
    const StrategyRun r = run_strategy(*m, s);
    for (std::size_t st = 0; st < r.steps.size(); ++st) {
        const std::set<int32_t> rows(r.rows[st].begin(), r.rows[st].end());
        for (int32_t h : r.head_rows[st]) ASSERT_EQ(rows.count(h), 1u);
        // With the gate off every candidate locks on its second computed step: the prompt locks at
        // step 1, so from step 2 on no prompt row reaches the LM head.
        if (st >= 2)
            for (int32_t h : r.head_rows[st]) ASSERT_GE(h, r.prompt_len) << st;
    }
}

TEST(StrategySureLock, ComposesWithSelectionAndFreeCache) {
    auto m = make_strategy_model(Family::Llada);
    for (const std::string name : {"surelock+selection", "surelock+freecache"}) {
        SCOPED_TRACE(name);
        check_locking_invariants(Family::Llada, name, 0.0);
        auto s = strategy_settings(name, 24, 24, 8);
        s.params["surelock.epsilon"] = "1e6";
        s.params["surelock.m"] = "100";
        const StrategyRun r = run_strategy(*m, s);
        for (std::size_t st = 0; st < r.steps.size(); ++st) ASSERT_EQ(r.computed[st], r.rows[st].size());
        for (int p = r.prompt_len; p < r.n; ++p) EXPECT_NE(r.canvas[std::size_t(p)], m->config().mask_token_id);
    }
}

TEST(StrategySureLock, BudgetedUnlockingProbesAndReleases) {
    auto m = make_strategy_model(Family::Llada);
    auto s = strategy_settings("surelock", 24, 24, 0, 0.9);
    s.params["surelock.epsilon"] = "1e6";
    s.params["surelock.m"] = "100";
    s.params["surelock.unlock"] = "on";
    s.params["surelock.unlock.period"] = "3";
    s.params["surelock.unlock.epsilon"] = "0";  // any drift unlocks...
    s.params["surelock.unlock.interval"] = "0";
    s.params["surelock.unlock.cooldown"] = "2";
    const StrategyRun r = run_strategy(*m, s);
    int unlocks = 0;
    std::vector<int> unlocked_at(24, -100);
    for (const StepTrace& t : r.steps) {
        const bool probe = t.step > 0 && t.step % 3 == 0;
        if (t.counters.count("probe_rows")) EXPECT_TRUE(probe) << t.step;
        for (const PositionTrace& p : t.positions) {
            if (p.event == PosEvent::Unlock) {
                EXPECT_TRUE(probe) << t.step;  // only a probe can unlock
                EXPECT_EQ(p.state, PosState::Active);
                unlocked_at[std::size_t(p.pos)] = t.step;
                ++unlocks;
            }
            if (p.event == PosEvent::Lock) EXPECT_GT(t.step - unlocked_at[std::size_t(p.pos)], 2) << p.pos;
        }
        if (t.counters.count("unlocks")) EXPECT_TRUE(probe);
    }
    EXPECT_GT(unlocks, 0);
    for (std::size_t st = 0; st < r.steps.size(); ++st) ASSERT_EQ(r.computed[st], r.rows[st].size());
}

// Without KL tracked for display, a masked position's KL, which the lock test never reads, is not
// computed: the run locks, commits and computes exactly as with KL everywhere.
TEST(StrategySureLock, UntrackedKlIsComputedOnlyWhereTheLockTestReadsIt) {
    for (const std::string unlock : {"off", "on"}) {
        auto m = make_strategy_model(Family::Llada);
        auto s = strategy_settings("surelock", 24, 24, 0, 0.0);
        s.params["surelock.epsilon"] = "1e6";
        s.params["surelock.m"] = "50";
        s.params["surelock.unlock"] = unlock;
        s.params["surelock.unlock.period"] = "3";
        s.params["surelock.unlock.epsilon"] = "0";
        const StrategyRun tracked = run_strategy(*m, s);
        s.track_kl = TrackKl::Off;
        const StrategyRun untracked = run_strategy(*m, s);
        ASSERT_EQ(tracked.steps.size(), untracked.steps.size());
        EXPECT_EQ(tracked.canvas, untracked.canvas);
        int masked_with_kl = 0, unmasked_with_kl = 0, locks = 0;
        for (std::size_t st = 0; st < tracked.steps.size(); ++st) {
            const StepTrace& a = tracked.steps[st];
            const StepTrace& b = untracked.steps[st];
            EXPECT_EQ(a.counters, b.counters) << st;
            EXPECT_EQ(a.rows_computed, b.rows_computed) << st;
            ASSERT_EQ(a.positions.size(), b.positions.size());
            for (std::size_t i = 0; i < a.positions.size(); ++i) {
                const PositionTrace& p = a.positions[i];
                const PositionTrace& q = b.positions[i];
                ASSERT_EQ(p.state, q.state) << "step " << st << " pos " << i;
                ASSERT_EQ(p.event, q.event) << "step " << st << " pos " << i;
                ASSERT_EQ(p.token, q.token) << "step " << st << " pos " << i;
                locks += q.event == PosEvent::Lock;
                if (q.state == PosState::Masked) {
                    EXPECT_TRUE(std::isnan(q.kl)) << "step " << st << " pos " << i;
                    masked_with_kl += !std::isnan(p.kl);
                } else if (!std::isnan(q.kl)) {
                    ++unmasked_with_kl;
                    EXPECT_EQ(p.kl, q.kl) << "step " << st << " pos " << i;
                }
            }
        }
        EXPECT_GT(masked_with_kl, 0) << "tracked KL covers masked positions";
        EXPECT_GT(unmasked_with_kl, 0) << "the lock test's KL is still computed";
        EXPECT_GT(locks, 0);
    }
}

TEST(StrategySureLock, PercentileIsNumpysLinearInterpolation) {
    std::vector<double> v{0.4, 0.1, 0.3, 0.2};
    EXPECT_DOUBLE_EQ(percentile_linear(v, 0), 0.1);
    EXPECT_DOUBLE_EQ(percentile_linear(v, 100), 0.4);
    EXPECT_NEAR(percentile_linear(v, 20), 0.16, 1e-12);  // numpy.percentile([.1,.2,.3,.4], 20)
    EXPECT_NEAR(percentile_linear(v, 50), 0.25, 1e-12);
    std::vector<double> one{0.7};
    EXPECT_DOUBLE_EQ(percentile_linear(one, 20), 0.7);
}

TEST(StrategySureLock, TheoremOneThresholdHelper) {
    const double c = surelock_c_tail(2.0, 3.0, 0.25);  // 2 * 3 / (1 - 0.5)
    EXPECT_DOUBLE_EQ(c, 12.0);
    EXPECT_DOUBLE_EQ(surelock_epsilon_for(0.6, c), 0.0025);  // (0.6 / 12)^2
    for (double delta : {1e-3, 0.05, 1.0, 7.5})
        EXPECT_NEAR(surelock_error_bound(surelock_epsilon_for(delta, c), c), delta, 1e-12 * delta);
    EXPECT_DOUBLE_EQ(surelock_epsilon_for(0.0, c), 0.0);
    EXPECT_THROW(surelock_c_tail(1.0, 1.0, 1.0), Error);
    EXPECT_THROW(surelock_c_tail(1.0, 1.0, 0.0), Error);
    EXPECT_THROW(surelock_c_tail(0.0, 1.0, 0.5), Error);
    EXPECT_THROW(surelock_epsilon_for(-1.0, c), Error);
    EXPECT_THROW(surelock_epsilon_for(0.1, 0.0), Error);
    EXPECT_THROW(surelock_error_bound(std::nan(""), c), Error);
}

TEST(StrategySureLock, ParametersAreCheckedAndNamed) {
    const auto c = test::fake_config();
    DecodeSettings s;
    s.gen_length = s.steps = 8;
    s.strategy = "surelock";
    s.params["surelock.epsilon"] = "5e-4";
    s.params["surelock.m"] = "40";
    Strategy st = make_strategy(s, c, 4);
    EXPECT_EQ(st.compute->name(), "surelock");
    EXPECT_EQ(st.unmask->name(), "llada");
    EXPECT_TRUE(st.issues.empty());
    s.params["surelock.m"] = "150";
    EXPECT_THROW(make_strategy(s, c, 4), Error);
    s.params["surelock.m"] = "20";
    s.params["surelock.epsilom"] = "1";  // a typo in a claimed namespace is refused
    EXPECT_THROW(make_strategy(s, c, 4), Error);
    s.params.erase("surelock.epsilom");
    s.params["surelock.unlock.period"] = "4";  // without surelock.unlock: a warning
    EXPECT_EQ(make_strategy(s, c, 4).issues.size(), 1u);
    s.params["selection.k"] = "0.5";  // another preset's namespace: ignored here, a warning of validate()
    EXPECT_EQ(make_strategy(s, c, 4).issues.size(), 1u);
    EXPECT_EQ(validate_with_strategy(s, c, 4).size(), 2u);
    s.strategy = "surelock+selection";
    s.params.erase("surelock.unlock.period");
    st = make_strategy(s, c, 4);
    EXPECT_EQ(st.compute->name(), "surelock+selection");
    EXPECT_TRUE(st.issues.empty());
    s.params["selection.k"] = "0";
    EXPECT_THROW(make_strategy(s, c, 4), Error);
}

}  // namespace
}  // namespace dlm
