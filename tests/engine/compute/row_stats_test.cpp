#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "compute/row_stats.h"
#include "util/error.h"

namespace dlm {
namespace {

const double kLn2 = std::log(2.0);

// p = {1/2, 1/4, 1/8, 1/8}, shifted by +3 so that lse = 3.
std::vector<float> dyadic_logits() {
    return {static_cast<float>(std::log(0.5) + 3), static_cast<float>(std::log(0.25) + 3),
            static_cast<float>(std::log(0.125) + 3), static_cast<float>(std::log(0.125) + 3)};
}

RowStats stats(const std::vector<float>& logits, const RowStatsRequest& req, std::span<const float> prev = {},
               std::span<float> out = {}, int32_t position = 7) {
    return compute_row_stats(logits, position, req, prev, out);
}

TEST(ComputeRowStats, RawSoftmaxEntropyAndLse) {
    RowStatsRequest req;
    std::vector<float> post(4);
    RowStats s = stats(dyadic_logits(), req, {}, post);
    EXPECT_EQ(s.position, 7);
    EXPECT_EQ(s.argmax, 0);
    EXPECT_NEAR(s.p_max, 0.5, 1e-6);
    EXPECT_NEAR(s.p_second, 0.25, 1e-6);
    EXPECT_NEAR(s.entropy, 1.75 * kLn2, 1e-6);  // 1/2·ln2 + 1/4·2ln2 + 2·1/8·3ln2
    EXPECT_NEAR(s.lse, 3.0, 1e-6);
    EXPECT_TRUE(std::isnan(s.kl_prev));  // no previous posterior
    EXPECT_NEAR(post[0], 0.5, 1e-6);
    EXPECT_NEAR(post[3], 0.125, 1e-6);
    // Greedy: processed distribution is the raw one.
    EXPECT_EQ(s.sampled, 0);
    EXPECT_FLOAT_EQ(s.sampled_p_raw, s.p_max);
    EXPECT_FLOAT_EQ(s.sampled_p_proc, s.p_max);
    EXPECT_FLOAT_EQ(s.p_max_proc, s.p_max);
    EXPECT_FLOAT_EQ(s.p_second_proc, s.p_second);
    EXPECT_FLOAT_EQ(s.entropy_proc, s.entropy);
}

TEST(ComputeRowStats, KlToPreviousPosterior) {
    RowStatsRequest req;
    const std::vector<float> uniform = {0.25f, 0.25f, 0.25f, 0.25f};
    RowStats s = stats(dyadic_logits(), req, uniform);
    // Σ p log(p / 0.25) = 1/2·ln2 + 1/4·0 + 2·1/8·(−ln2)
    EXPECT_NEAR(s.kl_prev, 0.25 * kLn2, 1e-6);
    const std::vector<float> same = {0.5f, 0.25f, 0.125f, 0.125f};
    EXPECT_NEAR(stats(dyadic_logits(), req, same).kl_prev, 0.0, 1e-7);
    EXPECT_GE(stats(dyadic_logits(), req, same).kl_prev, 0.0f);
    // A previous probability of exactly 0 is floored at 1e-30, keeping KL finite.
    const std::vector<float> zero_first = {0.0f, 0.5f, 0.25f, 0.25f};
    const double expected = 0.5 * (std::log(0.5) - std::log(1e-30)) + 0.25 * std::log(0.5) + 0.25 * std::log(0.5);
    EXPECT_NEAR(stats(dyadic_logits(), req, zero_first).kl_prev, expected, 1e-4);
}

TEST(ComputeRowStats, SuppressedIdsAreRemoved) {
    RowStatsRequest req;
    const std::vector<int32_t> suppress = {0};
    req.suppress_ids = suppress;
    std::vector<float> post(4);
    RowStats s = stats(dyadic_logits(), req, {}, post);
    EXPECT_EQ(s.argmax, 1);
    EXPECT_NEAR(s.p_max, 0.5, 1e-6);  // {0, 1/4, 1/8, 1/8} renormalised
    EXPECT_EQ(post[0], 0.0f);
    EXPECT_NEAR(s.entropy, 1.5 * kLn2, 1e-6);
    const std::vector<int32_t> all = {0, 1, 2, 3};
    req.suppress_ids = all;
    EXPECT_THROW(stats(dyadic_logits(), req), Error);
    const std::vector<int32_t> outside = {4};
    req.suppress_ids = outside;
    EXPECT_THROW(stats(dyadic_logits(), req), Error);
}

TEST(ComputeRowStats, TopPKeepsSmallestSetReachingTheMass) {
    RowStatsRequest req;
    req.sampling = {1.0, 0.7, 0};
    for (int pos = 0; pos < 50; ++pos) {
        RowStats s = stats(dyadic_logits(), req, {}, {}, pos);
        ASSERT_TRUE(s.sampled == 0 || s.sampled == 1) << s.sampled;  // {1/2, 1/4} reaches 0.7
        EXPECT_NEAR(s.p_max_proc, 2.0 / 3.0, 1e-6);
        EXPECT_NEAR(s.p_second_proc, 1.0 / 3.0, 1e-6);
        EXPECT_NEAR(s.entropy_proc, -(2.0 / 3 * std::log(2.0 / 3) + 1.0 / 3 * std::log(1.0 / 3)), 1e-6);
        EXPECT_NEAR(s.sampled_p_proc, s.sampled == 0 ? 2.0 / 3.0 : 1.0 / 3.0, 1e-6);
        EXPECT_NEAR(s.sampled_p_raw, s.sampled == 0 ? 0.5 : 0.25, 1e-6);
    }
    // A tiny top_p still keeps one token.
    req.sampling = {1.0, 1e-9, 0};
    RowStats s = stats(dyadic_logits(), req);
    EXPECT_EQ(s.sampled, 0);
    EXPECT_FLOAT_EQ(s.sampled_p_proc, 1.0f);
    EXPECT_FLOAT_EQ(s.entropy_proc, 0.0f);
}

// Dream applies top-p to the full tempered distribution and top-k afterwards. With
// p = {0.4, 0.35, 0.25}, top_p = 0.5 keeps {0, 1} (0.4 < 0.5 <= 0.75) and top_k = 2 keeps both;
// the other order would renormalise {0, 1} first and keep token 0 alone.
TEST(ComputeRowStats, TopPIsAppliedBeforeTopK) {
    RowStatsRequest req;
    req.sampling = {1.0, 0.5, 2};
    const std::vector<float> logits = {static_cast<float>(std::log(0.4)), static_cast<float>(std::log(0.35)),
                                       static_cast<float>(std::log(0.25))};
    RowStats s = stats(logits, req);
    EXPECT_NEAR(s.p_max_proc, 0.4 / 0.75, 1e-6);
    EXPECT_NEAR(s.p_second_proc, 0.35 / 0.75, 1e-6);
}

TEST(ComputeRowStats, TopKBreaksTiesByLowerId) {
    RowStatsRequest req;
    req.sampling = {1.0, 1.0, 3};
    for (int pos = 0; pos < 200; ++pos) {
        RowStats s = stats(dyadic_logits(), req, {}, {}, pos);
        ASSERT_NE(s.sampled, 3);  // id 3 ties with id 2 at 1/8 and loses
        EXPECT_NEAR(s.p_max_proc, 0.5 / 0.875, 1e-6);
    }
    req.sampling = {0.7, 1.0, 1};
    EXPECT_EQ(stats(dyadic_logits(), req).sampled, 0);
}

TEST(ComputeRowStats, GumbelSamplesFollowTheTemperedDistribution) {
    RowStatsRequest req;
    req.seed = 2024;
    req.step = 3;
    for (double T : {1.0, 2.0}) {
        req.sampling = {T, 1.0, 0};
        double w[4], z = 0;
        const double p[4] = {0.5, 0.25, 0.125, 0.125};
        for (int i = 0; i < 4; ++i) z += (w[i] = std::pow(p[i], 1.0 / T));
        std::vector<int> count(4, 0);
        const int n = 20000;
        for (int pos = 0; pos < n; ++pos) ++count[stats(dyadic_logits(), req, {}, {}, pos).sampled];
        for (int i = 0; i < 4; ++i) EXPECT_NEAR(count[i] / double(n), w[i] / z, 0.015) << "T=" << T << " id " << i;
        RowStats s = stats(dyadic_logits(), req);
        EXPECT_NEAR(s.p_max_proc, w[0] / z, 1e-6);
        EXPECT_NEAR(s.sampled_p_proc, w[s.sampled] / z, 1e-6);
        EXPECT_NEAR(s.sampled_p_raw, p[s.sampled], 1e-6);
    }
}

TEST(ComputeRowStats, GumbelDrawsAreKeyedBySeedStepAndPosition) {
    RowStatsRequest req;
    req.sampling = {1.0, 1.0, 0};
    std::vector<float> flat(16, 0.0f);  // uniform over 16 tokens: samples vary a lot
    req.seed = 5;
    req.step = 1;
    std::vector<int32_t> first;
    for (int pos = 0; pos < 32; ++pos) first.push_back(stats(flat, req, {}, {}, pos).sampled);
    for (int pos = 0; pos < 32; ++pos) EXPECT_EQ(stats(flat, req, {}, {}, pos).sampled, first[pos]);
    std::set<int32_t> distinct(first.begin(), first.end());
    EXPECT_GT(distinct.size(), 5u);  // different positions draw differently
    int changed_step = 0, changed_seed = 0;
    for (int pos = 0; pos < 32; ++pos) {
        req.step = 2;
        changed_step += stats(flat, req, {}, {}, pos).sampled != first[pos];
        req.step = 1;
        req.seed = 6;
        changed_seed += stats(flat, req, {}, {}, pos).sampled != first[pos];
        req.seed = 5;
    }
    EXPECT_GT(changed_step, 16);
    EXPECT_GT(changed_seed, 16);
}

TEST(ComputeRowStats, DisplayTopListIsSortedWithStableTies) {
    RowStatsRequest req;
    req.display_top_k = 3;
    RowStats s = stats(dyadic_logits(), req);
    ASSERT_EQ(s.top.size(), 3u);
    EXPECT_EQ(s.top[0].id, 0);
    EXPECT_EQ(s.top[1].id, 1);
    EXPECT_EQ(s.top[2].id, 2);  // ties with 3, lower id first
    EXPECT_NEAR(s.top[2].p, 0.125, 1e-6);
    req.display_top_k = 10;  // more than V
    EXPECT_EQ(stats(dyadic_logits(), req).top.size(), 4u);
    req.display_top_k = 0;
    EXPECT_TRUE(stats(dyadic_logits(), req).top.empty());
}

TEST(ComputeRowStats, RejectsBadInput) {
    RowStatsRequest req;
    EXPECT_THROW(stats({}, req), Error);
    std::vector<float> bad = dyadic_logits();
    bad[1] = std::numeric_limits<float>::quiet_NaN();
    EXPECT_THROW(stats(bad, req), Error);
    const std::vector<float> short_prev = {0.5f};
    EXPECT_THROW(stats(dyadic_logits(), req, short_prev), Error);
    req.sampling = {-1.0, 1.0, 0};
    EXPECT_THROW(stats(dyadic_logits(), req), Error);
    req.sampling = {1.0, 0.0, 0};
    EXPECT_THROW(stats(dyadic_logits(), req), Error);
    req.sampling = {1.0, 1.0, -2};
    EXPECT_THROW(stats(dyadic_logits(), req), Error);
}

// A Qwen-sized row against a plain libm computation of every raw statistic: the vectorised loops
// (exp, log, four-lane sums) must agree with it to far below float precision in both their builds
// (AVX2 + FMA where the CPU has them, and the portable one). The row has suppressed ids, tokens
// whose probability underflows, and a previous posterior with zeros (floored at 1e-30).
void check_large_row_against_libm() {
    const int V = 151936;
    std::mt19937 rng(11);
    std::normal_distribution<float> noise(0.0f, 4.0f);
    std::vector<float> logits(V), prev(V);
    for (int i = 0; i < V; ++i) logits[i] = noise(rng);
    logits[4242] = 40.0f;  // a confident row
    logits[77] = 38.5f;
    for (int i = 0; i < V; i += 997) logits[i] = -900.0f;  // p underflows to 0
    const std::vector<int32_t> suppressed = {5, 151935, 4243};
    double prev_sum = 0.0;
    for (int i = 0; i < V; ++i) prev_sum += (prev[i] = (i % 13 == 0) ? 0.0f : std::exp(noise(rng) * 0.5f));
    for (float& q : prev) q = static_cast<float>(q / prev_sum);

    RowStatsRequest req;
    req.suppress_ids = suppressed;
    req.display_top_k = 5;
    std::vector<float> post(V);
    const RowStats s = stats(logits, req, prev, post, 3);

    std::vector<double> l(logits.begin(), logits.end());
    for (int32_t id : suppressed) l[id] = -std::numeric_limits<double>::infinity();
    const double mx = *std::max_element(l.begin(), l.end());
    double sum = 0.0;
    for (double x : l) sum += std::exp(x - mx);
    const double lse = mx + std::log(sum);
    double entropy = 0.0, kl = 0.0, pmax = 0.0, second = 0.0;
    std::vector<double> p(V);
    for (int i = 0; i < V; ++i) {
        p[i] = std::exp(l[i] - lse);
        if (p[i] == 0.0) continue;
        entropy -= p[i] * (l[i] - lse);
        kl += p[i] * ((l[i] - lse) - std::log(std::max<double>(prev[i], 1e-30)));
    }
    for (int i = 0; i < V; ++i) {
        if (p[i] > pmax) {
            second = pmax;
            pmax = p[i];
        } else if (p[i] > second) {
            second = p[i];
        }
    }
    EXPECT_EQ(s.argmax, 4242);
    EXPECT_NEAR(s.lse, lse, 1e-5);
    EXPECT_NEAR(s.p_max, pmax, 1e-7);
    EXPECT_NEAR(s.p_second, second, 1e-7);
    EXPECT_NEAR(s.entropy, entropy, 1e-6 * std::max(1.0, entropy));
    EXPECT_NEAR(s.kl_prev, kl, 1e-6 * std::max(1.0, kl));
    double worst = 0.0;
    for (int i = 0; i < V; ++i) worst = std::max(worst, std::fabs(post[i] - p[i]) / std::max(p[i], 1e-30));
    EXPECT_LT(worst, 1e-6);
    for (int32_t id : suppressed) EXPECT_EQ(post[id], 0.0f);
    EXPECT_EQ(post[997], 0.0f);  // underflowed
    ASSERT_EQ(s.top.size(), 5u);
    EXPECT_EQ(s.top[0].id, 4242);
    EXPECT_EQ(s.top[1].id, 77);
    for (std::size_t j = 1; j < s.top.size(); ++j) EXPECT_GE(s.top[j - 1].p, s.top[j].p);
}

TEST(ComputeRowStats, LargeRowMatchesALibmReference) {
    for (const std::string_view isa : row_stats_isas()) {
        SCOPED_TRACE(std::string(isa) + " build");
        ASSERT_TRUE(use_row_stats_isa(isa));
        EXPECT_EQ(row_stats_isa(), isa);
        check_large_row_against_libm();
    }
    use_row_stats_isa("");
    EXPECT_EQ(row_stats_isa(), row_stats_isas().back());
}

TEST(ComputeRowStats, OnlyBuildsThisCpuRunsAreSelectable) {
    EXPECT_EQ(row_stats_isas().front(), "portable");
    EXPECT_FALSE(use_row_stats_isa("sse9"));
    EXPECT_EQ(row_stats_isa(), row_stats_isas().back());
    use_row_stats_isa("portable");
    EXPECT_EQ(row_stats_isa(), "portable");
    use_row_stats_isa("");
}

// The maximum is found four lanes at a time; among equal maxima the first token wins, as a plain
// scan finds it, in every build, wherever the ties fall (across lanes, in the tail).
TEST(ComputeRowStats, TiesGoToTheFirstMaximumInEveryBuild) {
    struct Case {
        int V;
        std::vector<int> tied;
    };
    for (const Case& c : {Case{7, {6}}, Case{7, {5, 6}}, Case{9, {8, 2}}, Case{4099, {4097, 13, 14, 2048}},
                          Case{10, {1, 0}}, Case{4099, {3, 7, 11}}}) {
        std::vector<float> logits(static_cast<std::size_t>(c.V), -1.0f);
        for (int i : c.tied) logits[static_cast<std::size_t>(i)] = 3.5f;
        const int first = *std::min_element(c.tied.begin(), c.tied.end());
        RowStatsRequest req;
        req.display_top_k = 0;
        for (const std::string_view isa : row_stats_isas()) {
            ASSERT_TRUE(use_row_stats_isa(isa));
            EXPECT_EQ(compute_row_stats(logits, 0, req, {}, {}).argmax, first) << isa << ", V " << c.V;
            // A suppressed first maximum passes the lead to the next.
            if (c.tied.size() > 1) {
                const std::vector<int32_t> suppress{first};
                RowStatsRequest r2 = req;
                r2.suppress_ids = suppress;
                std::vector<int> rest = c.tied;
                rest.erase(std::find(rest.begin(), rest.end(), first));
                EXPECT_EQ(compute_row_stats(logits, 0, r2, {}, {}).argmax, *std::min_element(rest.begin(), rest.end()))
                    << isa << ", V " << c.V;
            }
        }
    }
    use_row_stats_isa("");
}

TEST(ComputeRowStats, LargeVocabularyTopPMatchesFullSort) {
    // 5000 tokens with a long tail: the chunked partial sort must find the same nucleus as a
    // full sort (checked through the processed p_max and entropy).
    const int V = 5000;
    std::vector<float> logits(V);
    for (int i = 0; i < V; ++i) logits[i] = static_cast<float>(-0.002 * i + 0.3 * std::sin(i * 1.7));
    RowStatsRequest req;
    req.sampling = {0.9, 0.95, 0};
    RowStats s = stats(logits, req);
    std::vector<double> z(V), q(V);
    double mx = -1e300, sum = 0;
    for (int i = 0; i < V; ++i) mx = std::max(mx, z[i] = logits[i] / 0.9);
    for (int i = 0; i < V; ++i) sum += (q[i] = std::exp(z[i] - mx));
    std::vector<int> ids(V);
    for (int i = 0; i < V; ++i) ids[i] = i;
    std::sort(ids.begin(), ids.end(), [&](int a, int b) { return q[a] > q[b] || (q[a] == q[b] && a < b); });
    double cum = 0, kept = 0;
    int n = 0;
    while (cum < 0.95 * sum) cum += q[ids[n++]];
    kept = cum;
    double ent = 0;
    for (int i = 0; i < n; ++i) ent -= q[ids[i]] / kept * std::log(q[ids[i]] / kept);
    EXPECT_GT(n, 1000);  // the nucleus is far beyond the first sorted chunk
    EXPECT_NEAR(s.p_max_proc, q[ids[0]] / kept, 1e-6);
    EXPECT_NEAR(s.entropy_proc, ent, 1e-4);
}

}  // namespace
}  // namespace dlm
