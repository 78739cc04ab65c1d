// The fused row-statistics kernel (kernels/row_stats_kernel.cu) against the CPU reference
// compute_row_stats run on the same float logits: every field, the posterior store it updates, the
// token it samples (exactly: both draw the same Philox uniforms), ties, and the per-row error codes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "compute/row_stats.h"
#include "gpu_test_support.h"
#include "philox.cuh"
#include "row_stats_kernel.cuh"
#include "util/counter_rng.h"
#include "util/error.h"

namespace {

using dlm::cuda::DeviceRowStats;
using dlm::gpu_test::to_device;
using dlm::gpu_test::to_host;

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr double kProbTol = 1e-5;     // probabilities: both sides evaluate the same double formulas
constexpr double kEntropyTol = 1e-4;  // entropies, KL: sums in a different order

// One launch's inputs, in host memory.
struct Case {
    int vocab = 0;
    std::vector<float> logits;          // [logit rows][vocab]
    std::vector<int32_t> logits_row;    // one per stats row
    std::vector<float> uncond;          // [.][vocab]; empty: no guidance
    std::vector<int32_t> uncond_row;
    double cfg_scale = 0.0;
    std::vector<int32_t> suppress;
    std::vector<int32_t> positions;     // one per stats row, distinct
    std::vector<int32_t> query;         // one per stats row (-1: none); empty: no query tokens
    int slots = 0;                      // posterior store slots; 0: no store
    std::vector<float> store;           // [slots][vocab]
    std::vector<uint8_t> has_prev;      // one per stats row
    bool update = false;
    double temperature = 0.0;
    uint64_t seed = 1234;
    int step = 3;
    int display_k = 5;

    int rows() const { return static_cast<int>(positions.size()); }
};

struct GpuResult {
    std::vector<DeviceRowStats> stats;
    std::vector<float> store;  // the posterior store after the launch
};

template <typename T>
const T* device_or_null(const dlm::cuda::DeviceBuffer<T>& d, const std::vector<T>& host) {
    return host.empty() ? nullptr : d.get();
}

GpuResult run_gpu(const Case& c) {
    auto logits = to_device(c.logits);
    auto logits_row = to_device(c.logits_row);
    auto uncond = to_device(c.uncond);
    auto uncond_row = to_device(c.uncond_row);
    auto suppress = to_device(c.suppress);
    auto positions = to_device(c.positions);
    auto query = to_device(c.query);
    auto store = to_device(c.store);
    auto has_prev = to_device(c.has_prev);
    dlm::cuda::DeviceBuffer<DeviceRowStats> out(static_cast<std::size_t>(std::max(c.rows(), 1)), "test stats");

    dlm::cuda::RowStatsArgs args;
    args.rows = c.rows();
    args.vocab = c.vocab;
    args.logits = logits.get();
    args.logits_row = logits_row.get();
    args.uncond_logits = device_or_null(uncond, c.uncond);
    args.uncond_row = device_or_null(uncond_row, c.uncond_row);
    args.cfg_scale = c.cfg_scale;
    args.suppress_ids = device_or_null(suppress, c.suppress);
    args.n_suppress = static_cast<int>(c.suppress.size());
    args.positions = positions.get();
    args.query_token = device_or_null(query, c.query);
    args.posteriors = c.slots > 0 ? store.get() : nullptr;
    args.has_prev = c.slots > 0 ? has_prev.get() : nullptr;
    args.update_posteriors = c.update;
    args.temperature = c.temperature;
    args.rng_key = dlm::cuda::philox_key(c.seed, dlm::rng_stream::kSampling);
    args.step = c.step;
    args.display_k = c.display_k;
    args.out = out.get();
    dlm::cuda::launch_row_stats(args, nullptr);

    GpuResult r;
    r.stats = to_host(out, static_cast<std::size_t>(c.rows()));
    r.store = to_host(store, c.store.size());
    return r;
}

// The float logits row `r` the CPU backend hands compute_row_stats (guidance applied as it does).
std::vector<float> cpu_logits_row(const Case& c, int r) {
    const std::size_t V = static_cast<std::size_t>(c.vocab);
    const float* row = c.logits.data() + static_cast<std::size_t>(c.logits_row[r]) * V;
    std::vector<float> out(row, row + V);
    if (!c.uncond.empty()) {
        const float* u = c.uncond.data() + static_cast<std::size_t>(c.uncond_row[r]) * V;
        const double s1 = c.cfg_scale + 1.0;
        for (std::size_t i = 0; i < V; ++i) out[i] = static_cast<float>(u[i] + s1 * (static_cast<double>(row[i]) - u[i]));
    }
    return out;
}

dlm::RowStatsRequest cpu_request(const Case& c, std::vector<int32_t>& query_at) {
    dlm::RowStatsRequest req;
    req.sampling.temperature = c.temperature;
    req.seed = c.seed;
    req.step = c.step;
    req.suppress_ids = c.suppress;
    req.display_top_k = c.display_k;
    req.update_posteriors = c.update;
    query_at.clear();
    if (!c.query.empty()) {
        int max_pos = 0;
        for (int32_t p : c.positions) max_pos = std::max(max_pos, p);
        query_at.assign(static_cast<std::size_t>(max_pos) + 1, -1);
        for (int r = 0; r < c.rows(); ++r) query_at[static_cast<std::size_t>(c.positions[r])] = c.query[r];
    }
    req.query_token_at = query_at;
    return req;
}

void expect_rel(float got, float want, double tol, double floor, const std::string& what) {
    if (std::isnan(want)) {
        EXPECT_TRUE(std::isnan(got)) << what << ": got " << got << ", want NaN";
        return;
    }
    EXPECT_LE(std::abs(double(got) - double(want)), tol * std::max(std::abs(double(want)), floor))
        << what << ": got " << got << ", want " << want;
}

void expect_row_matches(const DeviceRowStats& got, const dlm::RowStats& want, int display_k, int vocab,
                        const std::string& where) {
    EXPECT_EQ(got.error, dlm::cuda::kRowStatsOk) << where;
    EXPECT_EQ(got.argmax, want.argmax) << where;
    EXPECT_EQ(got.sampled, want.sampled) << where << " sampled token";
    expect_rel(got.p_max, want.p_max, kProbTol, 1e-20, where + " p_max");
    expect_rel(got.p_second, want.p_second, kProbTol, 1e-20, where + " p_second");
    expect_rel(got.entropy, want.entropy, kEntropyTol, 1e-6, where + " entropy");
    expect_rel(got.lse, want.lse, kProbTol, 1.0, where + " lse");
    expect_rel(got.kl_prev, want.kl_prev, kEntropyTol, 1e-6, where + " kl_prev");
    expect_rel(got.query_p, want.query_p, kProbTol, 1e-20, where + " query_p");
    expect_rel(got.sampled_p_raw, want.sampled_p_raw, kProbTol, 1e-20, where + " sampled_p_raw");
    expect_rel(got.sampled_p_proc, want.sampled_p_proc, kProbTol, 1e-20, where + " sampled_p_proc");
    expect_rel(got.p_max_proc, want.p_max_proc, kProbTol, 1e-20, where + " p_max_proc");
    expect_rel(got.p_second_proc, want.p_second_proc, kProbTol, 1e-20, where + " p_second_proc");
    expect_rel(got.entropy_proc, want.entropy_proc, kEntropyTol, 1e-6, where + " entropy_proc");
    const std::size_t shown = static_cast<std::size_t>(std::min(display_k, vocab));
    ASSERT_EQ(want.top.size(), shown) << where;
    for (std::size_t j = 0; j < static_cast<std::size_t>(dlm::cuda::kMaxDisplayTopK); ++j) {
        if (j < shown) {
            EXPECT_EQ(got.top_ids[j], want.top[j].id) << where << " top " << j;
            expect_rel(got.top_p[j], want.top[j].p, kProbTol, 1e-20, where + " top_p " + std::to_string(j));
        } else {
            EXPECT_EQ(got.top_ids[j], -1) << where << " unused top slot " << j;
        }
    }
}

// Runs the case on both sides and compares every row and the posterior store. Rows the CPU
// rejects must carry `expected_errors[r]` (kRowStatsOk: the CPU accepts the row).
GpuResult check_case(const Case& c, const std::vector<int32_t>& expected_errors = {}) {
    const GpuResult gpu = run_gpu(c);
    std::vector<float> want_store = c.store;
    std::vector<int32_t> query_at;
    const dlm::RowStatsRequest req = cpu_request(c, query_at);
    const std::size_t V = static_cast<std::size_t>(c.vocab);
    for (int r = 0; r < c.rows(); ++r) {
        const std::string where = "row " + std::to_string(r);
        const int32_t pos = c.positions[r];
        const std::vector<float> row = cpu_logits_row(c, r);
        std::span<const float> prev;
        if (c.slots > 0 && c.has_prev[r]) prev = std::span<const float>(c.store.data() + pos * V, V);
        std::vector<float> post(c.slots > 0 && c.update ? V : 0);
        const int32_t expected_error = expected_errors.empty() ? dlm::cuda::kRowStatsOk : expected_errors[r];
        if (expected_error != dlm::cuda::kRowStatsOk) {
            EXPECT_THROW(compute_row_stats(row, pos, req, prev, post), dlm::Error) << where;
            EXPECT_EQ(gpu.stats[r].error, expected_error) << where;
            continue;  // the store keeps the slot's old contents
        }
        const dlm::RowStats want = compute_row_stats(row, pos, req, prev, post);
        expect_row_matches(gpu.stats[r], want, c.display_k, c.vocab, where);
        if (!post.empty()) std::copy(post.begin(), post.end(), want_store.begin() + pos * V);
    }
    if (c.slots > 0 && gpu.store.size() == want_store.size()) {
        double worst = 0.0;
        std::size_t worst_at = 0;
        for (std::size_t i = 0; i < want_store.size(); ++i) {
            const double err = std::abs(double(gpu.store[i]) - want_store[i]) / std::max(std::abs(double(want_store[i])), 1e-30);
            if (err > worst) {
                worst = err;
                worst_at = i;
            }
        }
        EXPECT_LE(worst, kProbTol) << "posterior store entry " << worst_at << " (slot " << worst_at / V << ", token "
                                   << worst_at % V << "): got " << gpu.store[worst_at] << ", want " << want_store[worst_at];
    }
    return gpu;
}

std::vector<float> random_logits(std::size_t count, float sigma, uint64_t seed) {
    std::mt19937_64 gen(seed);
    std::normal_distribution<float> normal(0.f, sigma);
    std::vector<float> v(count);
    for (float& x : v) x = normal(gen);
    return v;
}

// A store whose slots hold softmax-like previous posteriors (a few entries exactly 0, which the
// KL floors at 1e-30).
std::vector<float> random_store(int slots, int vocab, uint64_t seed) {
    std::vector<float> store = random_logits(static_cast<std::size_t>(slots) * vocab, 2.f, seed);
    for (int s = 0; s < slots; ++s) {
        float* row = store.data() + static_cast<std::size_t>(s) * vocab;
        double sum = 0.0;
        for (int i = 0; i < vocab; ++i) sum += std::exp(double(row[i]));
        for (int i = 0; i < vocab; ++i) row[i] = static_cast<float>(std::exp(double(row[i])) / sum);
        for (int i = s; i < vocab; i += 97) row[i] = 0.f;
    }
    return store;
}

// `rows` random rows over `vocab`, read through a shuffled row index, with a posterior store in
// which every other row has a previous posterior.
Case random_case(int vocab, int rows, float sigma, uint64_t seed) {
    Case c;
    c.vocab = vocab;
    const int logit_rows = rows + 1;
    c.logits = random_logits(static_cast<std::size_t>(logit_rows) * vocab, sigma, seed);
    for (int r = 0; r < rows; ++r) {
        c.logits_row.push_back((r * 3 + 1) % logit_rows);
        c.positions.push_back(3 * r + (r % 2));  // distinct, not the row index
        c.has_prev.push_back(static_cast<uint8_t>(r % 2 == 0));
    }
    // Some tokens of row 1's logits are -inf without being suppressed (outside the support).
    if (rows > 1) {
        float* row1 = c.logits.data() + static_cast<std::size_t>(c.logits_row[1]) * vocab;
        for (int i = 11; i < vocab; i += 53) row1[i] = -kInf;
    }
    c.slots = c.positions.back() + 2;
    c.store = random_store(c.slots, vocab, seed + 1);
    return c;
}

void add_cfg(Case& c, double scale, uint64_t seed) {
    const int uncond_rows = c.rows();
    c.uncond = random_logits(static_cast<std::size_t>(uncond_rows) * c.vocab, 2.f, seed);
    for (int r = 0; r < c.rows(); ++r) c.uncond_row.push_back((r + 1) % uncond_rows);
    c.cfg_scale = scale;
}

void add_queries(Case& c) {
    // None, in range, a suppressed id (p = 0), out of the vocabulary (none), in range...
    for (int r = 0; r < c.rows(); ++r) {
        switch (r % 4) {
        case 0: c.query.push_back(-1); break;
        case 1: c.query.push_back((r * 7919) % c.vocab); break;
        case 2: c.query.push_back(c.suppress.empty() ? 5 : c.suppress.front()); break;
        default: c.query.push_back(c.vocab + 3); break;
        }
    }
}

TEST(GpuRowStats, SmallVocabGreedyWithKlUpdateAndQueries) {
    DLM_REQUIRE_GPU();
    Case c = random_case(2560, 6, 3.f, 11);
    c.suppress = {0, 17, 2559};
    add_queries(c);
    c.update = true;
    c.temperature = 0.0;
    c.display_k = 5;
    check_case(c);
}

TEST(GpuRowStats, SmallVocabSampledWithGuidanceNoUpdate) {
    DLM_REQUIRE_GPU();
    Case c = random_case(2560, 8, 2.f, 12);
    c.suppress = {3, 1000};
    add_cfg(c, 1.5, 99);
    add_queries(c);
    c.update = false;
    c.temperature = 0.7;
    c.display_k = 16;
    const GpuResult gpu = check_case(c);
    EXPECT_EQ(0, std::memcmp(gpu.store.data(), c.store.data(), c.store.size() * sizeof(float)))
        << "update_posteriors = false must leave the store untouched";
}

TEST(GpuRowStats, LargeVocabSampledDeterministic) {
    DLM_REQUIRE_GPU();
    Case c = random_case(126464, 5, 2.f, 21);
    c.suppress = {126081, 126348, 7};
    add_cfg(c, 0.5, 23);
    add_queries(c);
    std::fill(c.has_prev.begin(), c.has_prev.end(), 1);
    c.update = true;
    c.temperature = 0.7;
    c.step = 17;
    c.seed = 987654321;
    c.display_k = 16;
    const GpuResult first = check_case(c);
    // With sigma 2 over 126k tokens the argmax holds little mass: the Gumbel path really samples.
    int differs = 0;
    for (const DeviceRowStats& s : first.stats) differs += s.sampled != s.argmax;
    EXPECT_GT(differs, 0) << "every sampled token equals the argmax; is the sampler running?";
    // Same inputs, same bits (the reductions run in a fixed order).
    const GpuResult second = run_gpu(c);
    ASSERT_EQ(first.stats.size(), second.stats.size());
    EXPECT_EQ(0, std::memcmp(first.stats.data(), second.stats.data(), first.stats.size() * sizeof(DeviceRowStats)));
}

TEST(GpuRowStats, LargeVocabGreedyWithoutStoreOrQueries) {
    DLM_REQUIRE_GPU();
    Case c = random_case(126464, 4, 4.f, 31);
    c.slots = 0;
    c.store.clear();
    c.temperature = 0.0;
    c.display_k = 0;
    const GpuResult gpu = check_case(c);
    for (const DeviceRowStats& s : gpu.stats) {
        EXPECT_TRUE(std::isnan(s.kl_prev));
        EXPECT_TRUE(std::isnan(s.query_p));
        EXPECT_EQ(s.top_ids[0], -1);
    }
}

// Exact ties: the lower id wins the argmax, the runner-up equals the max, and the display list
// orders equal probabilities (including underflowed zeros) by id.
TEST(GpuRowStats, TiesResolveByLowerId) {
    DLM_REQUIRE_GPU();
    Case c;
    c.vocab = 2560;
    const std::size_t V = 2560;
    c.logits.assign(4 * V, 0.f);
    // Row 0: all equal. Row 1: three maxima, two runners-up. Row 2: two dominant tokens, every
    // other p underflows to exactly 0. Row 3: two maxima and nothing else finite.
    float* r1 = c.logits.data() + V;
    for (int id : {100, 7, 3}) r1[id] = 5.f;
    for (int id : {50, 20}) r1[id] = 4.f;
    float* r2 = c.logits.data() + 2 * V;
    for (std::size_t i = 0; i < V; ++i) r2[i] = -1000.f;
    r2[9] = 1000.f;
    r2[5] = 1000.f;
    float* r3 = c.logits.data() + 3 * V;
    for (std::size_t i = 0; i < V; ++i) r3[i] = -kInf;
    r3[2000] = 1.f;
    r3[1999] = 1.f;
    c.logits_row = {0, 1, 2, 3};
    c.positions = {0, 1, 2, 3};
    c.display_k = 16;
    for (double temperature : {0.0, 0.7}) {
        c.temperature = temperature;
        const GpuResult gpu = check_case(c);
        EXPECT_EQ(gpu.stats[0].argmax, 0);
        EXPECT_EQ(gpu.stats[1].argmax, 3);
        EXPECT_EQ(gpu.stats[1].p_second, gpu.stats[1].p_max);
        EXPECT_EQ(gpu.stats[2].top_ids[2], 0);  // the zeros, by id
        EXPECT_EQ(gpu.stats[3].argmax, 1999);
    }
}

TEST(GpuRowStats, VocabularySmallerThanDisplayK) {
    DLM_REQUIRE_GPU();
    Case c = random_case(10, 3, 1.f, 41);
    c.suppress = {4};
    c.update = true;
    c.display_k = 16;
    c.temperature = 0.0;
    check_case(c);
    c.temperature = 1.3;
    c.display_k = 8;
    check_case(c);
}

TEST(GpuRowStats, BadRowsReportErrorCodes) {
    DLM_REQUIRE_GPU();
    Case c = random_case(2560, 6, 2.f, 51);
    c.suppress = {3};
    c.update = true;
    c.temperature = 0.7;
    c.logits_row = {0, 1, 2, 3, 4, 5};
    c.logits.resize(6 * 2560);
    const std::size_t V = 2560;
    c.logits[1 * V + 5] = std::numeric_limits<float>::quiet_NaN();  // row 1: NaN
    c.logits[2 * V + 9] = kInf;                                     // row 2: +inf
    c.logits[3 * V + 3] = std::numeric_limits<float>::quiet_NaN();  // row 3: NaN, but suppressed: fine
    for (std::size_t i = 0; i < V; ++i) c.logits[4 * V + i] = -kInf;  // row 4: nothing finite
    for (std::size_t i = 0; i < V; ++i) c.logits[5 * V + i] = -kInf;  // row 5: only a suppressed id
    c.logits[5 * V + 3] = 2.f;
    const GpuResult gpu = check_case(c, {dlm::cuda::kRowStatsOk, dlm::cuda::kRowStatsNonFinite,
                                         dlm::cuda::kRowStatsNonFinite, dlm::cuda::kRowStatsOk,
                                         dlm::cuda::kRowStatsAllSuppressed, dlm::cuda::kRowStatsAllSuppressed});
    // check_case compared the whole store: the failed rows' slots kept their old contents.
    EXPECT_EQ(gpu.stats[1].argmax, -1);
}

TEST(GpuRowStats, RejectsBadArguments) {
    DLM_REQUIRE_GPU();
    dlm::cuda::RowStatsArgs args;
    args.rows = 0;
    EXPECT_NO_THROW(dlm::cuda::launch_row_stats(args, nullptr)) << "no rows: nothing to do";
    args.rows = 1;
    args.vocab = 0;
    EXPECT_THROW(dlm::cuda::launch_row_stats(args, nullptr), dlm::Error);
    Case c = random_case(64, 1, 1.f, 61);
    auto logits = to_device(c.logits);
    auto logits_row = to_device(c.logits_row);
    auto positions = to_device(c.positions);
    dlm::cuda::DeviceBuffer<DeviceRowStats> out(1, "test stats");
    args.vocab = 64;
    args.logits = logits.get();
    args.logits_row = logits_row.get();
    args.positions = positions.get();
    args.out = out.get();
    args.display_k = dlm::cuda::kMaxDisplayTopK + 1;
    EXPECT_THROW(dlm::cuda::launch_row_stats(args, nullptr), dlm::Error);
    args.display_k = 5;
    args.temperature = -1.0;
    EXPECT_THROW(dlm::cuda::launch_row_stats(args, nullptr), dlm::Error);
    args.temperature = 0.0;
    args.n_suppress = 2;
    EXPECT_THROW(dlm::cuda::launch_row_stats(args, nullptr), dlm::Error);
    args.n_suppress = 0;
    EXPECT_NO_THROW(dlm::cuda::launch_row_stats(args, nullptr));
    EXPECT_EQ(to_host(out, 1)[0].error, dlm::cuda::kRowStatsOk);
}

}  // namespace
