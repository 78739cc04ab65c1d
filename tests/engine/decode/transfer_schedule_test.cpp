// Reference transfer schedules.
#include <gtest/gtest.h>

#include <numeric>

#include "decode/transfer_schedule.h"
#include "util/error.h"

namespace dlm {
namespace {

TEST(DecodeSchedule, LladaRemainderIsFrontLoaded) {
    EXPECT_EQ(llada_transfer_counts(10, 4), (std::vector<int>{3, 3, 2, 2}));
    EXPECT_EQ(llada_transfer_counts(7, 3), (std::vector<int>{3, 2, 2}));
    EXPECT_EQ(llada_transfer_counts(32, 32), std::vector<int>(32, 1));
}

TEST(DecodeSchedule, LladaMoreStepsThanMasksGivesZeroRevealSteps) {
    EXPECT_EQ(llada_transfer_counts(3, 5), (std::vector<int>{1, 1, 1, 0, 0}));
    EXPECT_EQ(llada_transfer_counts(0, 4), (std::vector<int>{0, 0, 0, 0}));
}

TEST(DecodeSchedule, LladaTotalsAreExactAndEven) {
    for (int masks = 0; masks <= 80; ++masks) {
        for (int steps = 1; steps <= 24; ++steps) {
            const auto c = llada_transfer_counts(masks, steps);
            ASSERT_EQ(static_cast<int>(c.size()), steps);
            EXPECT_EQ(std::accumulate(c.begin(), c.end(), 0), masks) << masks << "/" << steps;
            for (std::size_t i = 1; i < c.size(); ++i) {
                EXPECT_LE(c[i], c[i - 1]);       // non-increasing: the remainder comes first
                EXPECT_LE(c[0] - c[i], 1);       // never more than one apart
            }
        }
    }
}

TEST(DecodeSchedule, LladaRejectsNonPositiveSteps) {
    EXPECT_THROW(llada_transfer_counts(4, 0), Error);
    EXPECT_THROW(llada_transfer_counts(-1, 4), Error);
}

TEST(DecodeSchedule, DreamTimestepsRunFromOneToEps) {
    const auto t = dream_timesteps(512, 1e-3);
    ASSERT_EQ(t.size(), 513u);
    EXPECT_EQ(t.front(), 1.0f);
    EXPECT_EQ(t.back(), 1e-3f);
    for (std::size_t i = 1; i < t.size(); ++i) EXPECT_LT(t[i], t[i - 1]);
    EXPECT_NEAR(t[256], 1.0f - 256 * (0.999f / 512), 1e-6f);
}

// Simulates the topk algorithms' schedule: masks left, one count per step.
std::vector<int> simulate_dream(int tokens, int steps, double eps = 1e-3) {
    const auto t = dream_timesteps(steps, eps);
    std::vector<int> counts;
    int masks = tokens;
    for (int i = 0; i < steps; ++i) {
        const int k = dream_transfer_count(t, i, masks);
        counts.push_back(k);
        masks -= k;
    }
    return counts;
}

TEST(DecodeSchedule, DreamStepZeroRevealsNothingWhenStepsEqualTokens) {
    for (int n : {128, 256, 512}) {
        const auto c = simulate_dream(n, n);
        EXPECT_EQ(c.front(), 0) << n;  // int(n * 0.999/n) = 0
        EXPECT_EQ(std::accumulate(c.begin(), c.end(), 0), n);
        EXPECT_EQ(c.back(), 2) << n;  // the floor's deficit lands on the last step
    }
}

TEST(DecodeSchedule, DreamLastStepFillsEverything) {
    const auto t = dream_timesteps(64, 1e-3);
    EXPECT_EQ(dream_transfer_fraction(t, 63), 1.0f);
    EXPECT_EQ(dream_transfer_count(t, 63, 17), 17);
    const auto c = simulate_dream(128, 64);
    EXPECT_EQ(std::accumulate(c.begin(), c.end(), 0), 128);
    EXPECT_EQ(c.back(), 3);  // Dream's schedule: 3 at 128 tokens / 64 steps
    for (int k : c) EXPECT_GE(k, 0);
}

TEST(DecodeSchedule, DreamFewStepsRevealInBulk) {
    const auto c = simulate_dream(64, 4);
    EXPECT_EQ(std::accumulate(c.begin(), c.end(), 0), 64);
    // 1 - s/t with t = 1, 0.75025, 0.5005, 0.25075: about a quarter of the masks each step.
    EXPECT_EQ(c[0], 15);
    const auto one = simulate_dream(5, 1);
    EXPECT_EQ(one, std::vector<int>{5});
}

TEST(DecodeSchedule, DreamRejectsBadSteps) {
    EXPECT_THROW(dream_timesteps(0, 1e-3), Error);
    const auto t = dream_timesteps(4, 1e-3);
    EXPECT_THROW(dream_transfer_fraction(t, 4), Error);
    EXPECT_THROW(dream_transfer_fraction(t, -1), Error);
}

}  // namespace
}  // namespace dlm
