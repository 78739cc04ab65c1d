#include <gtest/gtest.h>

#include <cmath>

#include "compute/cpu/cpu_backend.h"
#include "bench/forward_bench.h"
#include "bench/random_weights.h"
#include "util/error.h"

namespace dlm {
namespace {

TEST(ComputeForwardBench, InMemoryRandomModelRuns) {
    RandomLladaSpec spec;
    spec.d_model = 64;
    spec.n_layers = 2;
    spec.n_heads = 4;
    spec.d_ff = 96;
    spec.vocab_size = 128;
    auto model = make_random_llada_weights(spec);
    auto be = make_cpu_backend(model->weights);
    std::vector<int32_t> tokens = {1, 2, 3, 4, 5, 6}, rows = {0, 1, 2, 3, 4, 5};
    auto cache = be->make_cache(6);
    ForwardItem item;
    item.tokens = tokens;
    item.rows = rows;
    item.head_rows = rows;
    item.cache = cache.get();
    be->forward(std::span<const ForwardItem>(&item, 1));
    const auto l = be->logits(0, 2);
    ASSERT_EQ(l.size(), 128u);
    for (float v : l) ASSERT_TRUE(std::isfinite(v));
    // Deterministic by seed.
    auto again = make_random_llada_weights(spec);
    auto be2 = make_cpu_backend(again->weights);
    auto cache2 = be2->make_cache(6);
    item.cache = cache2.get();
    be2->forward(std::span<const ForwardItem>(&item, 1));
    EXPECT_EQ(be2->logits(0, 2), l);
}

TEST(ComputeForwardBench, ReportsEveryLengthAndFraction) {
    ForwardBenchOptions o;
    o.model.d_model = 64;
    o.model.n_layers = 2;
    o.model.n_heads = 4;
    o.model.d_ff = 96;
    o.model.vocab_size = 128;
    o.lengths = {16, 32};
    o.fractions = {0.25, 0.5};
    o.reps = 1;
    int progress_calls = 0;
    o.progress = [&](const std::string&) { ++progress_calls; };
    const ForwardBenchResult r = run_forward_bench(o);
    EXPECT_EQ(r.backend, "cpu");
    EXPECT_GE(r.threads, 1);
    ASSERT_EQ(r.points.size(), 2u);
    EXPECT_EQ(progress_calls, 6);
    for (const LengthPoint& p : r.points) {
        EXPECT_GT(p.dense_seconds, 0.0);
        EXPECT_NEAR(p.dense_rows_per_s, p.n / p.dense_seconds, 1e-6 * p.dense_rows_per_s);
        EXPECT_GT(p.dense_gflops, 0.0);
        ASSERT_EQ(p.sparse.size(), 2u);
        EXPECT_EQ(p.sparse[0].rows, p.n / 4);
        EXPECT_EQ(p.sparse[1].rows, p.n / 2);
        for (const SparsePoint& s : p.sparse) EXPECT_NEAR(s.ratio, s.seconds / p.dense_seconds, 1e-9);
    }
    o.fractions = {1.5};
    EXPECT_THROW(run_forward_bench(o), Error);
    o.fractions = {0.5};
    o.lengths = {};
    EXPECT_THROW(run_forward_bench(o), Error);
}

}  // namespace
}  // namespace dlm
