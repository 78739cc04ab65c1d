#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <vector>

#include "util/counter_rng.h"

namespace dlm {
namespace {

// Random123's kat_vectors for philox4x32 with 10 rounds: counter (4 words), key (2), expected.
TEST(ComputeCounterRng, PhiloxKnownAnswers) {
    EXPECT_EQ(philox4x32_10({0, 0, 0, 0}, {0, 0}),
              (std::array<uint32_t, 4>{0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u}));
    EXPECT_EQ(philox4x32_10({0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu}, {0xffffffffu, 0xffffffffu}),
              (std::array<uint32_t, 4>{0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu}));
    EXPECT_EQ(philox4x32_10({0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u}, {0xa4093822u, 0x299f31d0u}),
              (std::array<uint32_t, 4>{0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u}));
}

// Pinned outputs of the keyed generator: a change here changes every recorded trace.
TEST(ComputeCounterRng, KeyedValuesAreStable) {
    const CounterRng rng(42, rng_stream::kSampling);
    const uint64_t pinned[4] = {rng.bits(0, 0, 0), rng.bits(1, 0, 0), rng.bits(0, 1, 0), rng.bits(0, 0, 1)};
    std::set<uint64_t> distinct(std::begin(pinned), std::end(pinned));
    EXPECT_EQ(distinct.size(), 4u);
    EXPECT_EQ(rng.bits(7, 3, 5), 0xcca82cfedf9139ffull) << std::hex << rng.bits(7, 3, 5);
    EXPECT_EQ(CounterRng(0, rng_stream::kRemasking).bits(0, 0, 0), 0xee2e70ee744de3d6ull);
    EXPECT_EQ(rng.uniform(7, 3, 5), 0x1.995059fdbf227p-1);
    EXPECT_DOUBLE_EQ(uniform(42, 7, 3, rng_stream::kSampling, 5), rng.uniform(7, 3, 5));
    EXPECT_EQ(random_bits(42, 7, 3, rng_stream::kSampling, 5), rng.bits(7, 3, 5));
}

TEST(ComputeCounterRng, UniformIsOpenAndFlat) {
    const CounterRng rng(123, rng_stream::kRemasking);
    const int n = 200000, buckets = 20;
    std::vector<int> hist(buckets, 0);
    double sum = 0, sum_sq = 0;
    for (int i = 0; i < n; ++i) {
        const double u = rng.uniform(static_cast<uint64_t>(i / 1000), static_cast<uint64_t>(i % 1000), 0);
        ASSERT_GT(u, 0.0);
        ASSERT_LT(u, 1.0);
        sum += u;
        sum_sq += u * u;
        ++hist[static_cast<int>(u * buckets)];
    }
    const double mean = sum / n, var = sum_sq / n - mean * mean;
    EXPECT_NEAR(mean, 0.5, 0.005);
    EXPECT_NEAR(var, 1.0 / 12.0, 0.002);
    double chi2 = 0;
    for (int c : hist) chi2 += (c - n / buckets) * (c - n / buckets) / static_cast<double>(n / buckets);
    EXPECT_LT(chi2, 45.0);  // 19 dof: p < 0.001 beyond ~43.8
}

TEST(ComputeCounterRng, ExtremesStayInsideTheOpenInterval) {
    EXPECT_GT(bits_to_open_unit(0), 0.0);
    EXPECT_LT(bits_to_open_unit(~0ull), 1.0);
    EXPECT_EQ(bits_to_open_unit(0), 0x1.0p-53);
    EXPECT_EQ(bits_to_open_unit(~0ull), 1.0 - 0x1.0p-53);
    EXPECT_TRUE(std::isfinite(std::log(-std::log(bits_to_open_unit(0)))));
    EXPECT_TRUE(std::isfinite(std::log(-std::log(bits_to_open_unit(~0ull)))));
}

TEST(ComputeCounterRng, FillMatchesSingleDrawsAndStreamsDiffer) {
    const CounterRng a(9, rng_stream::kSampling), b(9, rng_stream::kTransfer), c(10, rng_stream::kSampling);
    std::vector<double> fill(37);
    a.fill_uniform(4, 11, 3, fill);  // odd first draw: starts in the second half of a block
    for (std::size_t i = 0; i < fill.size(); ++i) EXPECT_EQ(fill[i], a.uniform(4, 11, 3 + i)) << i;
    int same_stream = 0, same_seed = 0;
    for (uint64_t p = 0; p < 100; ++p) {
        same_stream += a.bits(0, p) == b.bits(0, p);
        same_seed += a.bits(0, p) == c.bits(0, p);
    }
    EXPECT_EQ(same_stream, 0);
    EXPECT_EQ(same_seed, 0);
    // Positions and draws beyond 2^32 still give distinct values.
    EXPECT_NE(a.bits(0, 1ull << 32), a.bits(0, 0));
    EXPECT_NE(a.bits(0, 0, (1ull << 33)), a.bits(0, 0, 0));
}

}  // namespace
}  // namespace dlm
