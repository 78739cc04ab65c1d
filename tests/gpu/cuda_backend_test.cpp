// The CUDA backend against the CPU backend (the reference semantics): logits, log-sum-exps and
// attention probabilities of dense, token-sparse, batched, causal, K/V-override and WINO
// shadow-block (with explicit position ids) forwards on random
// checkpoints stored in bf16 (so both backends hold the very same weights and only the bf16
// activations of the GPU differ), the fused row statistics against compute_row_stats on the same
// logits, and whole decodes of the embedded tiny-mdlm model that must give identical tokens.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <numeric>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <vector>

#include "compute/cpu/cpu_backend.h"
#include "cuda_backend.h"
#include "decode/decode_session.h"
#include "gpu_test_support.h"
#include "model/checkpoint.h"
#include "support/random_checkpoint.h"
#include "text/chat_template.h"
#include "util/error.h"

namespace dlm {
namespace {

using test::pattern_canvas;
using test::RandomCheckpoint;
using test::row_range;
using test::RandomCheckpointOptions;

// A random bf16 checkpoint with a CPU and a CUDA backend over the same weights.
struct Pair : test::RandomModel {
    Pair() : RandomModel("dlm-cuda-backend-test") {}
    std::unique_ptr<Backend> cpu;
    std::unique_ptr<Backend> gpu;
};

std::unique_ptr<Pair> make_pair(Family family, uint64_t seed = 1) {
    auto p = std::make_unique<Pair>();
    RandomCheckpointOptions o;
    o.d_model = 64;
    o.n_heads = 4;  // head_dim 16; qwen2 and dream get 2 K/V heads (GQA)
    o.d_ff = 96;
    o.vocab_size = 80;
    o.dtype = DType::BF16;
    o.seed = seed;
    test::load_random_model(*p, family, o);
    p->cpu = make_cpu_backend(p->weights, {std::size_t(1) << 30, 2});
    p->gpu = make_cuda_backend(p->weights);
    return p;
}


struct RunOptions {
    const KvOverride* ovr = nullptr;
    bool want_lse = false;
    bool want_attention = false;
    std::span<const int32_t> position_ids = {};
    ShadowBlock shadow = {};
};

// One item; returns its head rows' logits ([head row][V]), head rows = rows.
std::vector<std::vector<float>> run(Backend& be, const std::vector<int32_t>& tokens, const std::vector<int32_t>& rows,
                                    KvCache& cache, RunOptions o = {}) {
    ForwardItem item;
    item.tokens = tokens;
    item.rows = rows;
    item.head_rows = rows;
    item.cache = &cache;
    item.kv_override = o.ovr;
    item.want_lse = o.want_lse;
    item.want_attention = o.want_attention;
    item.position_ids = o.position_ids;
    item.shadow = o.shadow;
    be.forward(std::span<const ForwardItem>(&item, 1));
    std::vector<std::vector<float>> out;
    for (std::size_t i = 0; i < rows.size(); ++i) out.push_back(be.logits(0, static_cast<int>(i)));
    return out;
}

std::vector<float> flat(const std::vector<std::vector<float>>& rows) {
    std::vector<float> f;
    for (const auto& r : rows) f.insert(f.end(), r.begin(), r.end());
    return f;
}

double max_abs(const std::vector<float>& v) {
    double m = 0;
    for (float x : v) m = std::max(m, std::abs(double(x)));
    return m;
}

double max_diff(const std::vector<float>& a, const std::vector<float>& b) {
    EXPECT_EQ(a.size(), b.size());
    double m = 0;
    for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i) m = std::max(m, std::abs(double(a[i]) - b[i]));
    return m;
}

// GPU vs CPU logits: the largest difference relative to the largest reference logit. bf16
// activations (five roundings per layer) keep it around 1 %; a wrong row, head or column is
// off by the logits' own size.
double logits_error(const std::vector<std::vector<float>>& gpu, const std::vector<std::vector<float>>& cpu) {
    const auto g = flat(gpu), c = flat(cpu);
    return max_diff(g, c) / std::max(max_abs(c), 1e-6);
}

constexpr double kLogitsTol = 3e-2;
constexpr double kLseTol = 3e-2;     // absolute, on log-sum-exps of O(1..5)
constexpr double kProbsTol = 2e-2;   // absolute, on probabilities

class CudaBackendFamily : public testing::TestWithParam<Family> {};

std::string family_case_name(const testing::TestParamInfo<Family>& info) {
    return std::string(family_name(info.param));
}

TEST_P(CudaBackendFamily, DenseForwardMatchesCpu) {
    DLM_REQUIRE_GPU();
    auto p = make_pair(GetParam());
    EXPECT_EQ(p->gpu->name(), "cuda");
    const ModelConfig& c = p->config();
    const int n = 21;
    const auto tokens = pattern_canvas(n, c.vocab_size);
    const auto rows = row_range(0, n);
    auto cc = p->cpu->make_cache(n), gc = p->gpu->make_cache(n);
    const auto want = run(*p->cpu, tokens, rows, *cc, {nullptr, true});
    const auto got = run(*p->gpu, tokens, rows, *gc, {nullptr, true});
    EXPECT_GT(max_abs(flat(want)), 0.5);  // the comparison means something
    EXPECT_LT(logits_error(got, want), kLogitsTol);
    const auto lse_cpu = p->cpu->attention_lse(0), lse_gpu = p->gpu->attention_lse(0);
    ASSERT_EQ(lse_gpu.size(), static_cast<std::size_t>(c.n_layers) * n * c.n_heads);
    EXPECT_LT(max_diff(lse_gpu, lse_cpu), kLseTol);
    EXPECT_TRUE(p->gpu->last_layer_attention(0).empty());
    for (int i = 0; i < n; ++i) EXPECT_TRUE(gc->has(i));
    EXPECT_FALSE(gc->has(n));
    // Another canvas gives other logits: the tolerance is far below what a wrong input would do.
    auto gc2 = p->gpu->make_cache(n);
    const auto other = run(*p->gpu, pattern_canvas(n, c.vocab_size, 7), rows, *gc2);
    EXPECT_GT(logits_error(other, want), 5 * kLogitsTol);
}

// Token-sparse: after a dense forward, a subset of the rows is recomputed on a changed canvas;
// the other columns come from the cache as they are (stale), exactly as on the CPU.
TEST_P(CudaBackendFamily, SparseForwardWithCachedKvMatchesCpu) {
    DLM_REQUIRE_GPU();
    auto p = make_pair(GetParam(), 2);
    const int n = 24, V = p->config().vocab_size;
    const auto before = pattern_canvas(n, V, 3);
    auto cc = p->cpu->make_cache(n), gc = p->gpu->make_cache(n);
    run(*p->cpu, before, row_range(0, n), *cc);
    const auto dense_gpu = run(*p->gpu, before, row_range(0, n), *gc);
    auto after = before;
    for (int i = 0; i < n; ++i) after[i] = (after[i] + 13) % V;
    for (const std::vector<int32_t>& rows :
         {std::vector<int32_t>{0}, std::vector<int32_t>{n - 1}, std::vector<int32_t>{3, 4, 5, 6},
          std::vector<int32_t>{1, 7, 8, 13, 17, 22, 23}}) {
        const auto want = run(*p->cpu, after, rows, *cc);
        const auto got = run(*p->gpu, after, rows, *gc);
        EXPECT_LT(logits_error(got, want), kLogitsTol) << "rows from " << rows.front();
        // Restore both caches to the dense state of `before` for the next subset.
        run(*p->cpu, before, row_range(0, n), *cc);
        run(*p->gpu, before, row_range(0, n), *gc);
    }
    // Recomputing a subset of an unchanged canvas reproduces the dense rows.
    const std::vector<int32_t> subset = {2, 9, 10, 11, 20};
    const auto sparse = run(*p->gpu, before, subset, *gc);
    std::vector<std::vector<float>> dense_rows;
    for (int32_t r : subset) dense_rows.push_back(dense_gpu[static_cast<std::size_t>(r)]);
    EXPECT_LT(logits_error(sparse, dense_rows), 1e-2);
}

INSTANTIATE_TEST_SUITE_P(CudaFamilies, CudaBackendFamily, testing::Values(Family::Llada, Family::Dream, Family::Qwen2),
                         family_case_name);

// Causal (qwen2): a prefix computed before the rest of the canvas has any K/V, then extended.
TEST(CudaBackend, CausalPrefixThenExtensionMatchesCpu) {
    DLM_REQUIRE_GPU();
    auto p = make_pair(Family::Qwen2, 3);
    const int n = 16, V = p->config().vocab_size;
    const auto tokens = pattern_canvas(n, V, 5);
    auto cc = p->cpu->make_cache(32), gc = p->gpu->make_cache(32);  // a cache longer than the canvas
    const std::vector<int32_t> prefix = {0, 1, 2, 3, 4, 5, 6}, rest = {7, 8, 9, 10, 11, 12, 13, 14, 15};
    EXPECT_LT(logits_error(run(*p->gpu, tokens, prefix, *gc), run(*p->cpu, tokens, prefix, *cc)), kLogitsTol);
    EXPECT_LT(logits_error(run(*p->gpu, tokens, rest, *gc), run(*p->cpu, tokens, rest, *cc)), kLogitsTol);
    // Later tokens cannot change earlier rows.
    auto changed = tokens;
    for (int i = 10; i < n; ++i) changed[i] = (changed[i] + 9) % V;
    auto g2 = p->gpu->make_cache(n);
    const auto a = run(*p->gpu, changed, row_range(0, n), *g2);
    auto g3 = p->gpu->make_cache(n);
    const auto b = run(*p->gpu, tokens, row_range(0, n), *g3);
    for (int i = 0; i < 10; ++i) EXPECT_LT(max_diff(a[i], b[i]), 1e-4) << "row " << i;
    EXPECT_GT(max_diff(a[12], b[12]), 1e-3);
}

// Causal (qwen2) rows attend in one launch, each over the columns up to its own position: a dense
// forward of 80 rows (blocks of early rows skip the second 64-column tile), then a prefix whose
// later columns were never computed and its extension; logits, every layer's log-sum-exps and
// the last layer's probabilities (exactly 0 after each row's position) against the CPU.
TEST(CudaBackend, CausalLseAndProbabilitiesMatchCpu) {
    DLM_REQUIRE_GPU();
    auto p = make_pair(Family::Qwen2, 10);
    const int n = 80, V = p->config().vocab_size;
    const auto tokens = pattern_canvas(n, V, 8);
    auto compare = [&](const std::vector<int32_t>& rows, KvCache& cc, KvCache& gc, const std::string& what) {
        const auto want = run(*p->cpu, tokens, rows, cc, {nullptr, true, true});
        const auto got = run(*p->gpu, tokens, rows, gc, {nullptr, true, true});
        EXPECT_LT(logits_error(got, want), kLogitsTol) << what;
        const auto lse_cpu = p->cpu->attention_lse(0), lse_gpu = p->gpu->attention_lse(0);
        ASSERT_EQ(lse_gpu.size(), lse_cpu.size()) << what;
        EXPECT_LT(max_diff(lse_gpu, lse_cpu), kLseTol) << what;
        const auto probs_cpu = p->cpu->last_layer_attention(0), probs_gpu = p->gpu->last_layer_attention(0);
        ASSERT_EQ(probs_gpu.size(), rows.size() * n) << what;
        EXPECT_LT(max_diff(probs_gpu, probs_cpu), kProbsTol) << what;
        for (std::size_t i = 0; i < rows.size(); ++i) {
            double sum = 0;
            for (int j = 0; j < n; ++j) {
                const float x = probs_gpu[i * n + static_cast<std::size_t>(j)];
                sum += x;
                if (j > rows[i]) {
                    ASSERT_EQ(x, 0.0f) << what << " row " << rows[i] << " sees column " << j;
                }
            }
            EXPECT_NEAR(sum, 1.0, 1e-2) << what << " row " << rows[i];
        }
    };
    {
        auto cc = p->cpu->make_cache(n), gc = p->gpu->make_cache(n);
        compare(row_range(0, n), *cc, *gc, "dense");
        compare({3, 17, 63, 64, 65, 79}, *cc, *gc, "scattered rows over the cache");
    }
    auto cc = p->cpu->make_cache(96), gc = p->gpu->make_cache(96);
    std::vector<int32_t> prefix(50), rest(30);
    std::iota(prefix.begin(), prefix.end(), 0);
    std::iota(rest.begin(), rest.end(), 50);
    compare(prefix, *cc, *gc, "prefix");
    compare(rest, *cc, *gc, "extension");
}

// A WINO canvas (as tests/engine/compute/cpu/shadow_block_test.cpp builds it): n columns with a few masks, then
// `count` shadow [MASK] columns at the RoPE positions of their twins [twin_first, + count).
struct ShadowCanvas {
    std::vector<int32_t> tokens, position_ids;
    ShadowBlock shadow;
};

ShadowCanvas shadow_canvas(const ModelConfig& c, int n, int twin_first, int count) {
    ShadowCanvas s;
    const int32_t mask = c.mask_token_id >= 0 ? c.mask_token_id : 0;
    s.tokens = pattern_canvas(n, c.vocab_size, 12);
    for (int i : {n - 1, n - 2, twin_first + 1}) s.tokens[static_cast<std::size_t>(i)] = mask;
    s.tokens.resize(static_cast<std::size_t>(n + count), mask);
    s.position_ids.resize(static_cast<std::size_t>(n + count));
    std::iota(s.position_ids.begin(), s.position_ids.begin() + n, 0);
    std::iota(s.position_ids.begin() + n, s.position_ids.end(), twin_first);
    s.shadow = ShadowBlock{n, twin_first, count};
    return s;
}

// WINO's shadow block on both backends (MHA, and GQA with biases): every row's logits, lse and
// probabilities (exactly 0 wherever ShadowBlock::visible says no); the shadow rows are not their
// twins' rows; the shadow rows alone, reading every real column from the cache, repeat the full
// forward's.
TEST(CudaBackend, ShadowBlockForwardMatchesCpu) {
    DLM_REQUIRE_GPU();
    for (Family family : {Family::Llada, Family::Dream}) {
        const std::string what(family_name(family));
        auto p = make_pair(family, 9);
        EXPECT_TRUE(p->gpu->supports_attention_layout());
        const ModelConfig& c = p->config();
        const int n = 70, twin_first = 50, count = 12;  // the block straddles the 64-column tile edge
        const ShadowCanvas s = shadow_canvas(c, n, twin_first, count);
        const int total = n + count;
        const auto rows = row_range(0, total);
        RunOptions o;
        o.want_lse = true;
        o.want_attention = true;
        o.position_ids = s.position_ids;
        o.shadow = s.shadow;
        auto cc = p->cpu->make_cache(total), gc = p->gpu->make_cache(total);
        const auto want = run(*p->cpu, s.tokens, rows, *cc, o);
        const auto got = run(*p->gpu, s.tokens, rows, *gc, o);
        EXPECT_LT(logits_error(got, want), kLogitsTol) << what;
        EXPECT_LT(max_diff(p->gpu->attention_lse(0), p->cpu->attention_lse(0)), kLseTol) << what;
        const auto probs_gpu = p->gpu->last_layer_attention(0);
        ASSERT_EQ(probs_gpu.size(), static_cast<std::size_t>(total) * total) << what;
        EXPECT_LT(max_diff(probs_gpu, p->cpu->last_layer_attention(0)), kProbsTol) << what;
        for (int q = 0; q < total; ++q)
            for (int k = 0; k < total; ++k)
                if (!s.shadow.visible(q, k)) {
                    ASSERT_EQ(probs_gpu[static_cast<std::size_t>(q) * total + k], 0.0f)
                        << what << " row " << q << " column " << k;
                }

        // The shadow rows predict their twins' tokens as if masked: not the twins' own rows.
        std::vector<std::vector<float>> shadow_logits(got.begin() + n, got.end());
        std::vector<std::vector<float>> twin_logits(got.begin() + twin_first, got.begin() + twin_first + count);
        EXPECT_GT(logits_error(shadow_logits, twin_logits), 5 * kLogitsTol) << what;
        // Nor what the shadow columns give without the block's rule.
        auto open_cache = p->gpu->make_cache(total);
        RunOptions open = o;
        open.shadow = ShadowBlock{};
        const auto unmasked = run(*p->gpu, s.tokens, rows, *open_cache, open);
        EXPECT_GT(logits_error(got, unmasked), 3 * kLogitsTol) << what;

        std::vector<int32_t> shadow_rows(static_cast<std::size_t>(count));
        std::iota(shadow_rows.begin(), shadow_rows.end(), n);
        RunOptions part = o;
        part.want_attention = false;
        const uint64_t before = p->gpu->rows_computed();
        const auto again = run(*p->gpu, s.tokens, shadow_rows, *gc, part);
        EXPECT_EQ(p->gpu->rows_computed() - before, static_cast<uint64_t>(count)) << what;
        EXPECT_LT(logits_error(again, shadow_logits), 1e-2) << what;
    }
}

// Explicit RoPE position ids alone (no shadow block), on a bidirectional and a causal model: the
// rotation uses the ids while K/V stay at their canvas columns; dense, then a sparse forward
// reading the rest from the cache.
TEST(CudaBackend, ExplicitPositionIdsMatchCpu) {
    DLM_REQUIRE_GPU();
    for (Family family : {Family::Llada, Family::Qwen2}) {
        const std::string what(family_name(family));
        auto p = make_pair(family, 11);
        const int n = 20;
        const auto tokens = pattern_canvas(n, p->config().vocab_size, 13);
        std::vector<int32_t> positions;
        for (int i = 0; i < n; ++i) positions.push_back(3 * i + 7);
        RunOptions o;
        o.want_lse = true;
        o.position_ids = positions;
        auto cc = p->cpu->make_cache(n), gc = p->gpu->make_cache(n);
        const auto want = run(*p->cpu, tokens, row_range(0, n), *cc, o);
        const auto got = run(*p->gpu, tokens, row_range(0, n), *gc, o);
        EXPECT_LT(logits_error(got, want), kLogitsTol) << what;
        EXPECT_LT(max_diff(p->gpu->attention_lse(0), p->cpu->attention_lse(0)), kLseTol) << what;
        auto identity_cache = p->gpu->make_cache(n);
        EXPECT_GT(logits_error(run(*p->gpu, tokens, row_range(0, n), *identity_cache), want), 3 * kLogitsTol) << what;

        const std::vector<int32_t> rows = {2, 9, 10, 19};
        EXPECT_LT(logits_error(run(*p->gpu, tokens, rows, *gc, o), run(*p->cpu, tokens, rows, *cc, o)), kLogitsTol)
            << what;
    }
}

// The layout checks are the CPU backend's (compute/attention_layout.h), before any work.
TEST(CudaBackend, MalformedAttentionLayoutsAreRefused) {
    DLM_REQUIRE_GPU();
    auto p = make_pair(Family::Llada, 12);
    const int n = 10, count = 3;
    const ShadowCanvas good = shadow_canvas(p->config(), n, 4, count);
    const auto rows = row_range(0, n + count);
    auto cache = p->gpu->make_cache(n + count);
    auto expect_refused = [&](Backend& be, KvCache& c, const ShadowCanvas& s, const std::string& needle) {
        RunOptions o;
        o.position_ids = s.position_ids;
        o.shadow = s.shadow;
        try {
            run(be, s.tokens, rows, c, o);
            ADD_FAILURE() << "accepted a layout that should be refused: " << needle;
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
        }
    };
    ShadowCanvas s = good;
    s.shadow.twin_first = 9;
    expect_refused(*p->gpu, *cache, s, "overlaps");
    s = good;
    s.position_ids.pop_back();
    expect_refused(*p->gpu, *cache, s, "position ids");
    s = good;
    s.position_ids[2] = p->config().max_seq_len;
    expect_refused(*p->gpu, *cache, s, "context");
    EXPECT_EQ(p->gpu->rows_computed(), 0u);
    EXPECT_FALSE(cache->has(0));

    auto causal = make_pair(Family::Qwen2, 12);
    auto causal_cache = causal->gpu->make_cache(n + count);
    expect_refused(*causal->gpu, *causal_cache, shadow_canvas(causal->config(), n, 4, count), "bidirectional");
}

// Two items in one forward (different canvases, rows, head rows, caches): each equals the CPU
// batch, and equals running it alone on the GPU.
TEST(CudaBackend, BatchOfTwoItemsMatchesCpuAndSeparateCalls) {
    DLM_REQUIRE_GPU();
    auto p = make_pair(Family::Dream, 4);
    const int n = 18, V = p->config().vocab_size;
    const auto t0 = pattern_canvas(n, V, 1), t1 = pattern_canvas(n, V, 2);
    const std::vector<int32_t> rows0 = {1, 2, 3, 7, 12}, head0 = {2, 7, 12};
    const auto rows1 = row_range(0, n);
    const std::vector<int32_t> head1 = {0, 9, 17};
    std::vector<std::vector<float>> alone[2];
    std::vector<float> alone_lse;
    {
        auto g0 = p->gpu->make_cache(n), g1 = p->gpu->make_cache(n);
        run(*p->gpu, t0, row_range(0, n), *g0);
        ForwardItem a;
        a.tokens = t0;
        a.rows = rows0;
        a.head_rows = head0;
        a.cache = g0.get();
        a.want_lse = true;
        p->gpu->forward(std::span<const ForwardItem>(&a, 1));
        for (int i = 0; i < 3; ++i) alone[0].push_back(p->gpu->logits(0, i));
        alone_lse = p->gpu->attention_lse(0);
        ForwardItem b;
        b.tokens = t1;
        b.rows = rows1;
        b.head_rows = head1;
        b.cache = g1.get();
        p->gpu->forward(std::span<const ForwardItem>(&b, 1));
        for (int i = 0; i < 3; ++i) alone[1].push_back(p->gpu->logits(0, i));
    }
    std::vector<std::vector<float>> batched[2][2];  // [backend][item]
    std::vector<float> batched_lse[2];
    Backend* backends[2] = {p->cpu.get(), p->gpu.get()};
    for (int be = 0; be < 2; ++be) {
        auto c0 = backends[be]->make_cache(n), c1 = backends[be]->make_cache(n);
        run(*backends[be], t0, row_range(0, n), *c0);
        ForwardItem items[2];
        items[0].tokens = t0;
        items[0].rows = rows0;
        items[0].head_rows = head0;
        items[0].cache = c0.get();
        items[0].want_lse = true;
        items[1].tokens = t1;
        items[1].rows = rows1;
        items[1].head_rows = head1;
        items[1].cache = c1.get();
        const uint64_t before = backends[be]->rows_computed();
        backends[be]->forward(items);
        EXPECT_EQ(backends[be]->rows_computed() - before, rows0.size() + rows1.size());
        for (int item = 0; item < 2; ++item)
            for (int i = 0; i < 3; ++i) batched[be][item].push_back(backends[be]->logits(item, i));
        batched_lse[be] = backends[be]->attention_lse(0);
        EXPECT_TRUE(backends[be]->attention_lse(1).empty());
    }
    for (int item = 0; item < 2; ++item) {
        EXPECT_LT(logits_error(batched[1][item], batched[0][item]), kLogitsTol) << "item " << item;
        // The same rows alone: only the GEMM shapes differ.
        EXPECT_LT(logits_error(batched[1][item], alone[item]), 1e-2) << "item " << item;
    }
    EXPECT_LT(max_diff(batched_lse[1], batched_lse[0]), kLseTol);
    EXPECT_LT(max_diff(batched_lse[1], alone_lse), 1e-2);
    EXPECT_THROW(p->gpu->logits(2, 0), Error);
    EXPECT_THROW(p->gpu->logits(0, 3), Error);
}

// COVER's K/V override on both backends, every combination of the view and of how it is made,
// with the log-sum-exps and the last layer's attention probabilities.
TEST(CudaBackend, KvOverrideMatchesCpu) {
    DLM_REQUIRE_GPU();
    for (Family family : {Family::Llada, Family::Qwen2}) {
        auto p = make_pair(family, 5);
        const ModelConfig& c = p->config();
        const int n = 14, V = c.vocab_size;
        const int mask = c.mask_token_id >= 0 ? c.mask_token_id : V - 1;
        const auto previous = pattern_canvas(n, V, 4);
        const std::vector<int32_t> seeds = {3, 8, 9};
        auto current = previous;
        for (int s : seeds) current[s] = mask;
        current[11] = (current[11] + 1) % V;
        // Offset 1: the row before each seed verifies it (shifted logits); seeds 8 and 9 make row 8
        // verify column 9 while reading its own column 8 from the snapshot.
        for (int offset : {0, 1}) {
        if (offset == 1 && !c.bidirectional) continue;
        for (bool self_sees_fresh : {true, false}) {
            for (bool closed_form : {false, true}) {
                const std::string what = std::string(family_name(family)) + (self_sees_fresh ? " fresh" : " stale") +
                                         (closed_form ? " closed-form" : " recomputed") + " offset " +
                                         std::to_string(offset);
                std::vector<std::vector<float>> logits[2];
                std::vector<float> lse[2], probs[2];
                Backend* backends[2] = {p->cpu.get(), p->gpu.get()};
                for (int be = 0; be < 2; ++be) {
                    Backend& b = *backends[be];
                    auto prev_cache = b.make_cache(n);
                    run(b, previous, row_range(0, n), *prev_cache);
                    auto snapshot = b.make_cache(n);
                    snapshot->copy_rows_from(*prev_cache, seeds);
                    KvOverride o;
                    o.positions = seeds;
                    o.source = snapshot.get();
                    o.self_sees_fresh = self_sees_fresh;
                    o.closed_form = closed_form;
                    o.verifier_offset = offset;
                    auto cache = b.make_cache(n);
                    logits[be] = run(b, current, row_range(0, n), *cache, {&o, true, true});
                    lse[be] = b.attention_lse(0);
                    probs[be] = b.last_layer_attention(0);
                    EXPECT_TRUE(cache->has(3)) << what;
                }
                EXPECT_LT(logits_error(logits[1], logits[0]), kLogitsTol) << what;
                EXPECT_LT(max_diff(lse[1], lse[0]), kLseTol) << what;
                ASSERT_EQ(probs[1].size(), static_cast<std::size_t>(n) * n) << what;
                EXPECT_LT(max_diff(probs[1], probs[0]), kProbsTol) << what;
                // Each row of probabilities sums to one over its visible columns.
                for (int i = 0; i < n; ++i) {
                    double sum = 0;
                    for (int j = 0; j < n; ++j) sum += probs[1][static_cast<std::size_t>(i) * n + j];
                    EXPECT_NEAR(sum, 1.0, 1e-2) << what << " row " << i;
                }
            }
        }
        }
        // The override matters (so the comparisons above test it).
        auto cache = p->gpu->make_cache(n);
        const auto plain = run(*p->gpu, current, row_range(0, n), *cache);
        auto prev_cache = p->gpu->make_cache(n);
        run(*p->gpu, previous, row_range(0, n), *prev_cache);
        auto snapshot = p->gpu->make_cache(n);
        snapshot->copy_rows_from(*prev_cache, seeds);
        KvOverride o;
        o.positions = seeds;
        o.source = snapshot.get();
        auto cache2 = p->gpu->make_cache(n);
        const auto overridden = run(*p->gpu, current, row_range(0, n), *cache2, {&o});
        EXPECT_GT(logits_error(overridden, plain), 3 * kLogitsTol) << family_name(family);
    }
}

// copy_rows_from moves K/V in runs between caches: a forward reading the copy equals one reading
// the original.
TEST(CudaBackend, KvCacheCopyRowsFromServesForwards) {
    DLM_REQUIRE_GPU();
    auto p = make_pair(Family::Llada, 6);
    const int n = 20, V = p->config().vocab_size;
    const auto tokens = pattern_canvas(n, V, 9);
    auto a = p->gpu->make_cache(n), b = p->gpu->make_cache(n);
    run(*p->gpu, tokens, row_range(0, n), *a);
    std::vector<int32_t> shuffled = row_range(0, n);
    std::reverse(shuffled.begin(), shuffled.begin() + 7);
    std::swap(shuffled[10], shuffled[15]);
    b->copy_rows_from(*a, shuffled);
    for (int i = 0; i < n; ++i) EXPECT_TRUE(b->has(i));
    const std::vector<int32_t> rows = {4, 5, 12};
    const auto from_a = run(*p->gpu, tokens, rows, *a);
    const auto from_b = run(*p->gpu, tokens, rows, *b);
    for (std::size_t i = 0; i < rows.size(); ++i) EXPECT_LT(max_diff(from_a[i], from_b[i]), 1e-6);
    auto c = p->gpu->make_cache(n);
    c->copy_rows_from(*a, std::vector<int32_t>{1, 2});
    EXPECT_TRUE(c->has(1));
    EXPECT_FALSE(c->has(0));
    a->clear();
    EXPECT_FALSE(a->has(1));
    EXPECT_THROW(c->copy_rows_from(*a, std::vector<int32_t>{n}), Error);
    auto cpu_cache = p->cpu->make_cache(n);
    EXPECT_THROW(c->copy_rows_from(*cpu_cache, std::vector<int32_t>{1}), Error);
}

TEST(CudaBackend, RowsComputedAndBadRequestsLikeCpu) {
    DLM_REQUIRE_GPU();
    auto p = make_pair(Family::Llada, 7);
    Backend& be = *p->gpu;
    const int n = 10, V = p->config().vocab_size;
    const auto tokens = pattern_canvas(n, V);
    auto cache = be.make_cache(n);
    auto expect_error = [&](const ForwardItem& item, const std::string& part) {
        try {
            be.forward(std::span<const ForwardItem>(&item, 1));
            ADD_FAILURE() << "no error for: " << part;
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
        }
    };
    const auto rows = row_range(0, n);
    {
        ForwardItem it;
        it.tokens = tokens;
        const std::vector<int32_t> r = {1, 2};
        it.rows = r;
        it.cache = cache.get();
        expect_error(it, "position 0 has no cached K/V");
    }
    {
        auto cpu_cache = p->cpu->make_cache(n);
        ForwardItem it;
        it.tokens = tokens;
        it.rows = rows;
        it.cache = cpu_cache.get();
        expect_error(it, "not made by the CUDA backend");
    }
    {
        ForwardItem it;
        it.tokens = tokens;
        const std::vector<int32_t> r = {1, 2}, h = {3};
        it.rows = r;
        it.head_rows = h;
        it.cache = cache.get();
        expect_error(it, "head row 3 is not among the computed rows");
    }
    EXPECT_EQ(be.rows_computed(), 0u);
    EXPECT_FALSE(cache->has(1));
    run(be, tokens, rows, *cache);
    EXPECT_EQ(be.rows_computed(), 10u);
    run(be, tokens, {1, 4, 9}, *cache);
    EXPECT_EQ(be.rows_computed(), 13u);
    run(be, tokens, {}, *cache);
    EXPECT_EQ(be.rows_computed(), 13u);
    // The backend is still usable after the errors.
    const auto again = run(be, tokens, rows, *cache);
    EXPECT_EQ(again.size(), rows.size());
}

// Backend::transfers(): the per-step copies are counted and timed on the device; loading the
// weights is not. One forward uploads its index arrays; each logits() call downloads one row.
TEST(CudaBackend, TransfersCountAndTimeTheStepsCopies) {
    DLM_REQUIRE_GPU();
    auto p = make_pair(Family::Llada, 9);
    Backend& be = *p->gpu;
    const int n = 10, V = p->config().vocab_size;
    EXPECT_EQ(be.transfers().copies(), 0u) << "the weights' upload is not a step's copy";
    auto cache = be.make_cache(n);
    run(be, pattern_canvas(n, V), row_range(0, n), *cache);
    const TransferTotals t = be.transfers();
    EXPECT_GE(t.to_device_copies, 1u);
    EXPECT_GT(t.to_device_bytes, 0u);
    EXPECT_GT(t.to_device_ms, 0.0);
    EXPECT_EQ(t.to_host_copies, static_cast<uint64_t>(n));
    EXPECT_EQ(t.to_host_bytes, static_cast<uint64_t>(n) * V * sizeof(float));
    EXPECT_GT(t.to_host_ms, 0.0);
    EXPECT_LT(t.ms(), 1e3) << "a few KB cannot take a second";
    run(be, pattern_canvas(n, V), {1, 2}, *cache);
    const TransferTotals d = be.transfers().since(t);
    EXPECT_EQ(d.to_host_copies, 2u);
    EXPECT_GE(d.to_device_copies, 1u);
    EXPECT_EQ(p->cpu->transfers().copies(), 0u);
}

void expect_same_stats(const RowStats& got, const RowStats& want, const std::string& what) {
    EXPECT_EQ(got.position, want.position) << what;
    EXPECT_EQ(got.argmax, want.argmax) << what;
    EXPECT_EQ(got.sampled, want.sampled) << what;
    EXPECT_NEAR(got.p_max, want.p_max, 1e-5) << what;
    EXPECT_NEAR(got.p_second, want.p_second, 1e-5) << what;
    EXPECT_NEAR(got.entropy, want.entropy, 1e-4) << what;
    EXPECT_NEAR(got.lse, want.lse, 1e-4) << what;
    EXPECT_NEAR(got.sampled_p_raw, want.sampled_p_raw, 1e-5) << what;
    EXPECT_NEAR(got.sampled_p_proc, want.sampled_p_proc, 1e-5) << what;
    EXPECT_NEAR(got.p_max_proc, want.p_max_proc, 1e-5) << what;
    EXPECT_NEAR(got.p_second_proc, want.p_second_proc, 1e-5) << what;
    EXPECT_NEAR(got.entropy_proc, want.entropy_proc, 1e-4) << what;
    EXPECT_EQ(std::isnan(got.kl_prev), std::isnan(want.kl_prev)) << what;
    if (!std::isnan(want.kl_prev)) {
        EXPECT_NEAR(got.kl_prev, want.kl_prev, 1e-5) << what;
    }
    EXPECT_EQ(std::isnan(got.query_p), std::isnan(want.query_p)) << what;
    if (!std::isnan(want.query_p)) {
        EXPECT_NEAR(got.query_p, want.query_p, 1e-5) << what;
    }
    ASSERT_EQ(got.top.size(), want.top.size()) << what;
    for (std::size_t j = 0; j < want.top.size(); ++j) {
        EXPECT_EQ(got.top[j].id, want.top[j].id) << what << " top " << j;
        EXPECT_NEAR(got.top[j].p, want.top[j].p, 1e-5) << what << " top " << j;
    }
}

// The fused statistics (and the CPU fallback for top-p / top-k) against compute_row_stats over
// the very logits the GPU produced: CFG, suppressed ids, query tokens, temperature sampling and
// the posterior store across steps.
TEST(CudaBackend, RowStatsMatchCpuReferenceOnTheSameLogits) {
    DLM_REQUIRE_GPU();
    auto p = make_pair(Family::Llada, 8);
    Backend& be = *p->gpu;
    const ModelConfig& c = p->config();
    const int n = 12, V = c.vocab_size;
    const int mask = c.mask_token_id;
    auto cond = pattern_canvas(n, V, 6);
    for (int i = 5; i < n; ++i) cond[i] = mask;
    auto uncond = cond;
    for (int i = 0; i < 5; ++i) uncond[i] = mask;
    const std::vector<int32_t> rows = row_range(0, n), head = {5, 6, 7, 8, 9, 10, 11};
    auto c0 = be.make_cache(n), c1 = be.make_cache(n);
    ForwardItem items[2];
    items[0].tokens = cond;
    items[1].tokens = uncond;
    for (ForwardItem& it : items) {
        it.rows = rows;
        it.head_rows = head;
    }
    items[0].cache = c0.get();
    items[1].cache = c1.get();
    be.forward(items);
    std::vector<std::vector<float>> lc, lu;
    for (int r = 0; r < 7; ++r) {
        lc.push_back(be.logits(0, r));
        lu.push_back(be.logits(1, r));
    }
    const std::vector<int32_t> index = {0, 2, 3, 6}, positions = {5, 7, 8, 11};
    std::vector<int32_t> query(static_cast<std::size_t>(n), -1);
    query[7] = 4;
    query[11] = V + 3;  // outside the vocabulary: none
    const std::vector<int32_t> suppress = {0, 17};

    struct Case {
        std::string name;
        SamplingParams sampling;
        bool cfg;
        int display;
    };
    const std::vector<Case> cases = {
        {"greedy", {0.0, 1.0, 0}, false, 5},
        {"greedy cfg", {0.0, 1.0, 0}, true, 5},
        {"tempered", {0.8, 1.0, 0}, false, 3},
        {"tempered cfg", {1.3, 1.0, 0}, true, 16},
        {"top-p (CPU fallback)", {0.7, 0.9, 0}, false, 5},
        {"top-k (CPU fallback)", {0.7, 1.0, 4}, true, 5},
        {"many candidates (CPU fallback)", {0.0, 1.0, 0}, false, 20},
    };
    for (const Case& k : cases) {
        auto store = be.make_posterior_store(n);
        std::vector<std::vector<float>> prev(static_cast<std::size_t>(n));
        for (int step = 0; step < 3; ++step) {
            if (step == 2) store->erase(8);
            RowStatsRequest req;
            req.item = 0;
            req.head_row_index = index;
            req.positions = positions;
            req.sampling = k.sampling;
            req.seed = 42;
            req.step = step;
            req.suppress_ids = suppress;
            if (k.cfg) {
                req.cfg_uncond_item = 1;
                req.cfg_scale = 1.5;
            }
            req.posteriors = store.get();
            req.display_top_k = k.display;
            req.query_token_at = query;
            const auto got = be.row_stats(req);
            ASSERT_EQ(got.size(), positions.size());
            for (std::size_t r = 0; r < positions.size(); ++r) {
                const int32_t pos = positions[r];
                std::vector<float> row = lc[static_cast<std::size_t>(index[r])];
                if (k.cfg) {
                    const auto& u = lu[static_cast<std::size_t>(index[r])];
                    for (int t = 0; t < V; ++t)
                        row[t] = static_cast<float>(u[t] + 2.5 * (static_cast<double>(row[t]) - u[t]));
                }
                std::vector<float> post(static_cast<std::size_t>(V));
                const bool has_prev = step > 0 && !(step == 2 && pos == 8);
                const RowStats want = compute_row_stats(
                    row, pos, req, has_prev ? std::span<const float>(prev[static_cast<std::size_t>(pos)]) : std::span<const float>{},
                    post);
                prev[static_cast<std::size_t>(pos)] = post;
                expect_same_stats(got[r], want, k.name + " step " + std::to_string(step) + " position " + std::to_string(pos));
                EXPECT_TRUE(store->has(pos));
                EXPECT_NE(got[r].argmax, 0);  // suppressed
            }
        }
    }

    // Errors: every token suppressed; a bad temperature.
    std::vector<int32_t> every(static_cast<std::size_t>(V));
    std::iota(every.begin(), every.end(), 0);
    RowStatsRequest bad;
    bad.head_row_index = index;
    bad.positions = positions;
    bad.suppress_ids = every;
    try {
        be.row_stats(bad);
        ADD_FAILURE() << "all-suppressed row accepted";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("is suppressed"), std::string::npos) << e.what();
    }
    bad.suppress_ids = {};
    bad.sampling.temperature = -1;
    EXPECT_THROW(be.row_stats(bad), Error);
    RowStatsRequest foreign;
    foreign.head_row_index = index;
    foreign.positions = positions;
    auto cpu_store = p->cpu->make_posterior_store(n);
    foreign.posteriors = cpu_store.get();
    EXPECT_THROW(be.row_stats(foreign), Error);
}

// Whole decodes of the embedded model: the GPU backend must pick exactly the CPU backend's tokens
// at T = 0, with the baseline and with SureLock (which skips rows and uses the posterior store).
TEST(CudaBackend, TinyMdlmDecodesIdenticallyToCpu) {
    DLM_REQUIRE_GPU();
    // DLM_SOURCE_DIR in the environment: a checkout elsewhere (tools/bench/gpu_bench.sh).
    const char* env_root = std::getenv("DLM_SOURCE_DIR");
    const std::filesystem::path root(env_root && *env_root ? env_root : DLM_SOURCE_DIR);
    const std::filesystem::path dir = root / "resources/models/tiny-mdlm";
    if (!std::filesystem::exists(dir / "config.json")) GTEST_SKIP() << "embedded model not present";
    const Checkpoint ck = load_checkpoint(dir);
    auto cpu = make_cpu_backend(ck.weights, {std::size_t(1) << 30, 0});
    auto gpu = make_cuda_backend(ck.weights);
    const bool chat = ck.chat_template.recognised();

    std::ifstream in(root / "resources/eval/test.jsonl");
    ASSERT_TRUE(in.good());
    std::string line;
    int prompts = 0;
    while (prompts < 3 && std::getline(in, line)) {
        if (line.empty()) continue;
        const auto ex = nlohmann::json::parse(line);
        const std::string text = ex.at("prompt").get<std::string>();
        const int gen = ex.value("gen_length", 48);
        const std::vector<int32_t> prompt = build_prompt(ck, text, chat);
        for (const std::string strategy : {"baseline", "surelock"}) {
            DecodeSettings s;
            s.strategy = strategy;
            s.gen_length = gen;
            s.steps = gen;
            s.block_length = gen;
            s.temperature = 0.0;
            std::vector<int32_t> canvases[2];
            Backend* backends[2] = {cpu.get(), gpu.get()};
            for (int b = 0; b < 2; ++b) {
                DecodeSession session(*backends[b], *ck.tokenizer, ck.config(), prompt, s);
                session.run();
                canvases[b] = session.canvas();
                EXPECT_EQ(session.masks_left(), 0);
            }
            EXPECT_EQ(canvases[1], canvases[0]) << strategy << ": " << text;
        }
        ++prompts;
    }
    EXPECT_EQ(prompts, 3);
}

// Runs everywhere: without a usable GPU (this CI machine) the backend refuses with a message a
// user can read, and never crashes; with one, it builds and a device that does not exist is
// refused the same way.
TEST(CudaBackendNoGpu, MakeCudaBackendFailsCleanlyOrWorks) {
    test::ScratchDir dir("dlm-cuda-nogpu-test");
    RandomCheckpointOptions o;
    o.dtype = DType::BF16;
    const RandomCheckpoint ck = test::write_random_checkpoint(dir.path(), Family::Llada, o);
    const ModelWeights weights = test::load_random_checkpoint(ck);
    const auto probe = cuda::probe_device();
    if (!probe.available) {
        try {
            make_cuda_backend(weights);
            ADD_FAILURE() << "a CUDA backend was made without a usable device";
        } catch (const Error& e) {
            const std::string msg = e.what();
            EXPECT_NE(msg.find("CUDA backend"), std::string::npos) << msg;
            EXPECT_GT(msg.size(), std::string("CUDA backend: ").size() + 5) << msg;
        }
        return;
    }
    auto be = make_cuda_backend(weights);
    EXPECT_EQ(be->name(), "cuda");
    CudaBackendOptions far;
    far.device = probe.device_count + 3;
    try {
        make_cuda_backend(weights, far);
        ADD_FAILURE() << "a device that does not exist was accepted";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("does not exist"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace dlm
