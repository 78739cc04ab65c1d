// FreeCache, Fast-dLLM prefix / dual cache, selection and the threshold rule on tiny random
// checkpoints through the real CPU backend.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "decode/strategy.h"
#include "decode/threshold_unmask.h"
#include "support/strategy_test_support.h"
#include "util/error.h"

namespace dlm {
namespace {

using test::make_strategy_model;
using test::run_strategy;
using test::strategy_settings;
using test::StrategyRun;

// First masked generated position's block, as the canvas looked *before* step st.
int block_before(const StrategyRun& r, std::size_t st, int block_len) {
    if (st == 0) return 0;
    for (const PositionTrace& p : r.steps[st - 1].positions)
        if (p.state == PosState::Masked) return p.pos / block_len;
    return static_cast<int>(r.steps[st - 1].positions.size()) / block_len - 1;
}

TEST(StrategyFreeCache, FrozenRowsAreNeverRecomputed) {
    for (Family family : {Family::Llada, Family::Dream}) {
        SCOPED_TRACE(std::string(family_name(family)));
        auto m = make_strategy_model(family);
        auto s = strategy_settings("freecache", 24, 12, 8, 0.0);
        if (family == Family::Dream) s.params["freecache.block_length"] = "8";
        const StrategyRun r = run_strategy(*m, s);
        const int shift = family == Family::Dream ? 1 : 0;
        std::set<int> frozen;
        for (std::size_t st = 0; st < r.steps.size(); ++st) {
            ASSERT_EQ(r.computed[st], r.rows[st].size());
            const std::set<int32_t> rows(r.rows[st].begin(), r.rows[st].end());
            for (int p : frozen) ASSERT_EQ(rows.count(p), 0u) << "frozen row " << p << " recomputed at " << st;
            if (st == 0) {
                ASSERT_EQ(static_cast<int>(rows.size()), r.n);  // the first forward fills the cache
            } else {
                // The window: the current block (minus one row under the shift) to the end.
                const int start = r.prompt_len + 8 * block_before(r, st, 8) - shift;
                ASSERT_EQ(*rows.begin(), start) << st;
                ASSERT_EQ(static_cast<int>(rows.size()), r.n - start) << st;
                for (int p = 0; p < r.prompt_len - shift; ++p) ASSERT_EQ(rows.count(p), 0u);  // prompt frozen
            }
            for (const PositionTrace& p : r.steps[st].positions)
                if (p.state == PosState::Frozen) {
                    frozen.insert(r.prompt_len + p.pos);
                    ASSERT_NE(p.token, m->config().mask_token_id);
                }
        }
        // Every block but the last ends frozen (under the shift its last position stays active
        // while the next block still needs its row).
        EXPECT_GE(static_cast<int>(frozen.size()), 16 - 2 * shift);
    }
}

void check_kv_cache(const std::string& strategy, Family family) {
    auto m = make_strategy_model(family);
    auto s = strategy_settings(strategy, 24, 24, 8, 0.0);
    s.params["threshold.tau"] = "0.2";
    const StrategyRun r = run_strategy(*m, s);
    const int shift = family == Family::Dream ? 1 : 0;
    int prev_block = -1;
    int refreshes = 0;
    for (std::size_t st = 0; st < r.steps.size(); ++st) {
        const StepTrace& t = r.steps[st];
        ASSERT_EQ(r.computed[st], r.rows[st].size());
        const int block = block_before(r, st, 8);
        const bool boundary = block != prev_block;
        prev_block = block;
        const bool refreshed = t.counters.count("cache_refresh") != 0;
        // A refresh exactly when a block starts, and it computes the whole canvas.
        ASSERT_EQ(refreshed, boundary) << st;
        refreshes += refreshed;
        const int begin = r.prompt_len + 8 * block - shift;
        if (refreshed) {
            ASSERT_EQ(static_cast<int>(r.rows[st].size()), r.n);
        } else {
            ASSERT_EQ(r.rows[st].front(), begin) << st;
            const int end = strategy == "fast-dllm" ? r.prompt_len + 8 * (block + 1) : r.n;
            ASSERT_EQ(r.rows[st].back(), end - 1) << st;
            ASSERT_EQ(static_cast<int>(r.rows[st].size()), end - begin) << st;
        }
        // Commits stay inside the block and at least one happens.
        ASSERT_GE(t.newly_unmasked, 1);
        for (const PositionTrace& p : t.positions)
            if (p.event == PosEvent::Unmask) ASSERT_EQ(p.pos / 8, block) << st;
    }
    EXPECT_EQ(refreshes, 3);
    for (int p = r.prompt_len; p < r.n; ++p) EXPECT_NE(r.canvas[std::size_t(p)], m->config().mask_token_id);
}

TEST(StrategyFastDllm, DualCacheRefreshesExactlyAtBlockBoundaries) {
    check_kv_cache("fast-dllm", Family::Llada);
    check_kv_cache("fast-dllm", Family::Dream);
}

TEST(StrategyFastDllm, PrefixCacheRefreshesExactlyAtBlockBoundaries) {
    check_kv_cache("fast-dllm-prefix", Family::Llada);
    check_kv_cache("fast-dllm-prefix", Family::Dream);
}

TEST(StrategyFastDllm, ThresholdAlwaysCommitsAtLeastOne) {
    auto m = make_strategy_model(Family::Llada);
    for (const char* tau : {"1", "0.5", "0"}) {
        auto s = strategy_settings("threshold", 16, 16, 8, 0.7);
        s.params["threshold.tau"] = tau;
        const StrategyRun r = run_strategy(*m, s);
        for (const StepTrace& t : r.steps) ASSERT_GE(t.newly_unmasked, 1) << tau;
        if (std::string(tau) == "0") EXPECT_EQ(r.steps.size(), 2u);  // one step per block
        for (int p = r.prompt_len; p < r.n; ++p) EXPECT_NE(r.canvas[std::size_t(p)], m->config().mask_token_id);
    }
}

TEST(StrategyFastDllm, ThresholdAndFactorRulesOnConstructedConfidences) {
    using TU = ThresholdUnmask;
    EXPECT_EQ(TU::accept_threshold({}, 0.9), 0);
    EXPECT_EQ(TU::accept_threshold({0.5, 0.4}, 0.9), 1);  // the max is always kept
    EXPECT_EQ(TU::accept_threshold({0.95, 0.9, 0.89}, 0.9), 2);  // >= tau
    EXPECT_EQ(TU::accept_threshold({0.95, -INFINITY}, 0.0), 1);  // refused candidates never pass
    // factor 1: thresholds -1, 1 - 1/3, 1 - 1/4, 1 - 1/5 ...
    EXPECT_EQ(TU::accept_factor({0.1}, 1.0), 1);
    EXPECT_EQ(TU::accept_factor({0.9, 0.7, 0.74, 0.1, 0.0}, 1.0), 2);  // fails at j = 2 (0.74 < 0.75)
    EXPECT_EQ(TU::accept_factor({0.9, 0.5, 0.4, 0.3}, 1.0), 1);         // fails at j = 1
    EXPECT_EQ(TU::accept_factor({0.9, 0.8, 0.9, 0.1}, 1.0), 4);         // fails at the last: quirk accepts it
    EXPECT_EQ(TU::accept_factor({0.99, 0.99, 0.99}, 1.0), 3);           // none fails
}

TEST(StrategySelection, ComputesFractionKAndEveryMaskedRow) {
    for (Family family : {Family::Llada, Family::Dream}) {
        auto m = make_strategy_model(family);
        auto s = strategy_settings("selection", 24, 24, family == Family::Llada ? 8 : 0);
        s.params["selection.k"] = "0.5";
        const StrategyRun r = run_strategy(*m, s);
        const int shift = family == Family::Dream ? 1 : 0;
        bool saved = false;
        for (std::size_t st = 0; st < r.steps.size(); ++st) {
            ASSERT_EQ(r.computed[st], r.rows[st].size());
            const std::set<int32_t> rows(r.rows[st].begin(), r.rows[st].end());
            ASSERT_GE(static_cast<int>(rows.size()), (r.n + 1) / 2);
            saved = saved || static_cast<int>(rows.size()) < r.n;
            // Every masked position's predicting row runs, so the unmask rule sees all of them.
            const StepTrace& t = r.steps[st];
            for (const PositionTrace& p : t.positions)
                if (p.state == PosState::Masked) ASSERT_EQ(rows.count(r.prompt_len + p.pos - shift), 1u) << st;
        }
        EXPECT_TRUE(saved);
    }
}

TEST(StrategyRegistry, PresetsAreKnownAndInvalidCombinationsRefused) {
    const auto names = known_strategies();
    for (const char* n : {"baseline", "surelock", "freecache", "fast-dllm", "fast-dllm-prefix", "selection",
                          "surelock+selection", "surelock+freecache", "threshold"})
        EXPECT_NE(std::find(names.begin(), names.end(), n), names.end()) << n;
    const auto c = test::fake_config();
    DecodeSettings s;
    s.gen_length = s.steps = 16;
    s.block_length = 8;
    s.strategy = "fast-dllm";
    Strategy st = make_strategy(s, c, 4);
    EXPECT_EQ(st.unmask->name(), "fast-dllm-threshold");
    EXPECT_EQ(st.compute->name(), "dual-cache");
    s.params["threshold.tau"] = "0.8";
    s.params["threshold.factor"] = "1";
    try {
        make_strategy(s, c, 4);
        FAIL();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("only one"), std::string::npos);
    }
    s.params.erase("threshold.tau");
    EXPECT_EQ(make_strategy(s, c, 4).unmask->name(), "fast-dllm-factor");
    // Infinity passes strtod but is no parameter value: refused before the run, not during it.
    for (const char* inf : {"inf", "INF", "infinity"}) {
        s.params["threshold.factor"] = inf;
        try {
            make_strategy(s, c, 4);
            ADD_FAILURE() << inf;
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find("not a finite number"), std::string::npos) << e.what();
        }
    }
    s.params["threshold.factor"] = "1";
    s.params.clear();
    s.strategy = "fast-dllm-prefix";
    s.block_length = 5;  // does not divide gen_length
    EXPECT_THROW(make_strategy(s, c, 4), Error);
    s.block_length = 8;
    EXPECT_EQ(make_strategy(s, c, 4).compute->name(), "prefix-cache");
    s.params["threshold.tau"] = "1.5";
    EXPECT_THROW(make_strategy(s, c, 4), Error);
}

}  // namespace
}  // namespace dlm
