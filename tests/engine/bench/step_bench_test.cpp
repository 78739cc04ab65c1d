#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "compute/cpu/cpu_backend.h"
#include "bench/random_weights.h"
#include "bench/roofline.h"
#include "bench/step_bench.h"
#include "decode/flops.h"
#include "support/model_test_support.h"

namespace dlm {
namespace {

using test::expect_error;

// Counts what the bench asks of the backend, around the real CPU backend.
class CountingBackend final : public Backend {
public:
    explicit CountingBackend(std::unique_ptr<Backend> inner) : inner_(std::move(inner)) {}
    std::string name() const override { return inner_->name(); }
    const ModelConfig& config() const override { return inner_->config(); }
    std::unique_ptr<KvCache> make_cache(int n) override { return inner_->make_cache(n); }
    std::unique_ptr<PosteriorStore> make_posterior_store(int n) override { return inner_->make_posterior_store(n); }
    void forward(std::span<const ForwardItem> batch) override {
        ++forwards;
        last_batch = batch.size();
        last_rows.clear();
        for (const ForwardItem& it : batch) {
            last_rows.push_back(it.rows.size());
            EXPECT_EQ(it.head_rows.size(), it.rows.size() == it.tokens.size() ? it.tokens.size() - 16 : it.rows.size());
            for (int32_t r : it.head_rows) EXPECT_GE(r, 16) << "the prompt never goes through the head";
        }
        inner_->forward(batch);
    }
    std::vector<RowStats> row_stats(const RowStatsRequest& req) override {
        ++stats_calls;
        return inner_->row_stats(req);
    }
    std::vector<float> logits(int item, int row) const override { return inner_->logits(item, row); }
    std::vector<float> attention_lse(int item) const override { return inner_->attention_lse(item); }
    uint64_t rows_computed() const override { return inner_->rows_computed(); }

    int forwards = 0, stats_calls = 0;
    std::size_t last_batch = 0;
    std::vector<std::size_t> last_rows;

private:
    std::unique_ptr<Backend> inner_;
};

TEST(ComputeStepBench, TimesDenseAndSparseStepsOfEveryShape) {
    auto model = make_random_llada_weights(random_llada_preset("tiny"));
    CountingBackend be(make_cpu_backend(model->weights));
    StepBenchOptions o;
    o.prompt_len = 16;
    o.lengths = {48, 80};
    o.batches = {1, 3};
    o.fractions = {1.0, 0.5, 0.25};
    o.reps = 2;
    o.warmup = 1;
    RooflineRates rates{1e11, 1e10, "test"};
    const StepBenchReport r = run_step_bench(be, rates, "cpu test", o);
    ASSERT_EQ(r.points.size(), 4u);
    // (1 dense + 3 sparse) x (warm-up + reps) steps per point.
    EXPECT_EQ(be.forwards, 4 * 4 * 3);
    // Per measurement: 3 steps, then the statistics alone once untimed and `reps` times timed;
    // 4 measurements per point, one call per canvas.
    EXPECT_EQ(be.stats_calls, 2 * 4 * (3 + 1 + 2) * (1 + 3));
    EXPECT_EQ(be.last_batch, 3u);
    EXPECT_EQ(be.last_rows, (std::vector<std::size_t>{16, 16, 16}));  // 25% of 64 generated rows
    const StepBenchPoint& p = r.points[3];
    EXPECT_EQ(p.n, 80);
    EXPECT_EQ(p.gen, 64);
    EXPECT_EQ(p.batch, 3);
    EXPECT_EQ(p.dense.rows, 80);
    EXPECT_EQ(p.dense.head_rows, 64);
    ASSERT_EQ(p.sparse.size(), 3u);
    EXPECT_EQ(p.sparse[0].rows, 64);
    EXPECT_EQ(p.sparse[1].rows, 32);
    EXPECT_EQ(p.sparse[2].rows, 16);
    for (const StepTiming& t : p.sparse) EXPECT_EQ(t.head_rows, t.rows);
    EXPECT_GT(p.dense.seconds, 0.0);
    EXPECT_LE(p.dense.min_seconds, p.dense.seconds);
    EXPECT_GT(p.dense.stats_seconds, 0.0);
    const ModelConfig& c = model->weights.config;
    EXPECT_DOUBLE_EQ(p.dense.cost.flops, 3 * (paper_flops(c, 80, 80) + lm_head_flops(c, 64)));
    EXPECT_DOUBLE_EQ(p.dense.roofline_seconds, roofline_seconds(p.dense.cost, rates));

    const auto j = nlohmann::json::parse(step_bench_json(r));
    EXPECT_EQ(j["schema"], "dlmscope-step-bench/1");
    EXPECT_EQ(j["points"].size(), 4u);
    EXPECT_EQ(j["points"][3]["sparse"][1]["rows"], 32);
    EXPECT_NEAR(j["points"][3]["sparse"][1]["ratio_to_dense"].get<double>(), p.sparse[1].seconds / p.dense.seconds, 1e-12);
    EXPECT_NEAR(j["points"][3]["dense"]["roofline_pct"].get<double>(),
                100 * p.dense.roofline_seconds / p.dense.seconds, 1e-9);
    EXPECT_DOUBLE_EQ(j["roofline"]["gemm_tflops"].get<double>(), 0.1);
    EXPECT_NEAR(j["points"][3]["dense"]["stats_ms"].get<double>(), 1e3 * p.dense.stats_seconds, 1e-9);
    EXPECT_NEAR(j["points"][3]["dense"]["stats_share"].get<double>(), p.dense.stats_seconds / p.dense.seconds, 1e-12);
}

TEST(ComputeStepBench, RefusesNonsenseOptions) {
    auto model = make_random_llada_weights(random_llada_preset("tiny"));
    auto be = make_cpu_backend(model->weights);
    StepBenchOptions o;
    o.lengths = {64};  // == the prompt
    expect_error([&] { run_step_bench(*be, {}, "", o); }, {"length 64", "prompt"});
    o.lengths = {4096};  // beyond the tiny model's context of 1024
    expect_error([&] { run_step_bench(*be, {}, "", o); }, {"context"});
    o.lengths = {128};
    o.fractions = {0.0};
    expect_error([&] { run_step_bench(*be, {}, "", o); }, {"fraction"});
    o.fractions = {0.5};
    o.batches = {};
    expect_error([&] { run_step_bench(*be, {}, "", o); }, {"batch"});
}

TEST(ComputeRoofline, LladaEightBillionStep) {
    const ModelConfig c = random_llada_config(random_llada_preset("llada-8b"));
    // Dense step at N = 320 (64 + 256), batch 1: the paper's 4.5205e12 + the head on 256 rows.
    const StepCost s = step_cost(c, 320, 320, 256, 1);
    EXPECT_NEAR(s.flops, 4.5205e12 + 2.0 * 256 * 4096 * 126464, 0.001e12);
    // bf16 weights: 2 bytes per parameter, less the embedding table (only 320 rows are read).
    const double params = static_cast<double>(parameter_count(c));
    EXPECT_NEAR(s.weight_bytes, 2 * (params - 126464.0 * 4096 + 320 * 4096), 1.0);
    EXPECT_DOUBLE_EQ(s.kv_bytes, 2.0 * 32 * 2 * 4096 * (320 + 320));
    // ~790 TFLOP/s and ~4.3 TB/s (KINDS.md): compute-bound, ~6.1 ms.
    const RooflineRates h200{790e12, 4.3e12, ""};
    EXPECT_NEAR(roofline_seconds(s, h200), s.flops / 790e12, 1e-12);
    // Tiny batches of few rows are bandwidth-bound.
    const StepCost thin = step_cost(c, 320, 8, 8, 1);
    EXPECT_NEAR(roofline_seconds(thin, h200), thin.bytes() / 4.3e12, 1e-12);
    EXPECT_EQ(roofline_seconds(s, RooflineRates{}), 0.0);
    // A batch multiplies FLOPs and K/V, not the weights read.
    const StepCost b4 = step_cost(c, 320, 320, 256, 4);
    EXPECT_DOUBLE_EQ(b4.flops, 4 * s.flops);
    EXPECT_NEAR(b4.weight_bytes - s.weight_bytes, 2.0 * 3 * 320 * 4096, 1.0);
}

}  // namespace
}  // namespace dlm
