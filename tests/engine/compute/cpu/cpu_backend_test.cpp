// The CPU backend against the independent double-precision reference, and the token-sparse
// properties design.md §3 promises (skipped rows are skipped, cached columns are used as is,
// COVER's override view, causal masking, batching).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

#include "compute/cpu/cpu_backend.h"
#include "compute/cpu/panel_gemm.h"
#include "support/random_checkpoint.h"
#include "support/reference_forward.h"
#include "util/error.h"

namespace dlm {
namespace {

using test::pattern_canvas;
using test::row_range;
using test::RandomCheckpointOptions;
using test::ReferenceOutput;
using test::ReferenceOverride;

// A random checkpoint on disk, loaded through the engine, with a backend over it.
struct Fixture : test::RandomModel {
    Fixture() : RandomModel("dlm-compute-test") {}
    std::unique_ptr<Backend> backend;
};

std::unique_ptr<Fixture> make_fixture(Family family, RandomCheckpointOptions options = {},
                                      CpuBackendOptions backend_options = {}) {
    auto f = std::make_unique<Fixture>();
    test::load_random_model(*f, family, options);
    f->backend = make_cpu_backend(f->weights, backend_options);
    return f;
}


// Runs one item and returns its head rows' logits, [head row][V].
std::vector<std::vector<float>> run(Backend& be, const std::vector<int32_t>& tokens, const std::vector<int32_t>& rows,
                                    KvCache& cache, const KvOverride* ovr = nullptr, bool want_lse = false) {
    ForwardItem item;
    item.tokens = tokens;
    item.rows = rows;
    item.head_rows = rows;
    item.cache = &cache;
    item.kv_override = ovr;
    item.want_lse = want_lse;
    be.forward(std::span<const ForwardItem>(&item, 1));
    std::vector<std::vector<float>> out;
    for (std::size_t i = 0; i < rows.size(); ++i) out.push_back(be.logits(0, static_cast<int>(i)));
    return out;
}

double max_diff_vs_reference(const std::vector<std::vector<float>>& logits, const std::vector<int32_t>& rows,
                             const ReferenceOutput& ref) {
    double worst = 0;
    for (std::size_t i = 0; i < rows.size(); ++i)
        for (int t = 0; t < ref.vocab; ++t) worst = std::max(worst, std::abs(logits[i][t] - ref.logit(rows[i], t)));
    return worst;
}

double max_diff(const std::vector<float>& a, const std::vector<float>& b) {
    double worst = 0;
    for (std::size_t i = 0; i < a.size(); ++i) worst = std::max(worst, static_cast<double>(std::abs(a[i] - b[i])));
    return worst;
}

struct FamilyCase {
    Family family;
    DType dtype;
};

std::string case_name(const testing::TestParamInfo<FamilyCase>& info) {
    return std::string(family_name(info.param.family)) + "_" + std::string(dtype_name(info.param.dtype));
}

class ComputeCpuBackendFamily : public testing::TestWithParam<FamilyCase> {};

TEST_P(ComputeCpuBackendFamily, DenseForwardMatchesReference) {
    RandomCheckpointOptions o;
    o.dtype = GetParam().dtype;
    auto f = make_fixture(GetParam().family, o);
    const int n = 13;
    const auto tokens = pattern_canvas(n, f->ck.config.vocab_size);
    const auto rows = row_range(0, n);
    auto cache = f->backend->make_cache(n);
    const auto logits = run(*f->backend, tokens, rows, *cache, nullptr, true);
    const ReferenceOutput ref = test::reference_forward(f->ck, tokens);
    EXPECT_LT(max_diff_vs_reference(logits, rows, ref), 1e-4);
    // Logits are not trivially small: the comparison means something.
    double spread = 0;
    for (int t = 0; t < ref.vocab; ++t) spread = std::max(spread, std::abs(ref.logit(0, t)));
    EXPECT_GT(spread, 0.5);

    const std::vector<float> lse = f->backend->attention_lse(0);
    const ModelConfig& c = f->ck.config;
    ASSERT_EQ(lse.size(), static_cast<std::size_t>(c.n_layers) * n * c.n_heads);
    double worst = 0;
    for (int l = 0; l < c.n_layers; ++l)
        for (int i = 0; i < n; ++i)
            for (int h = 0; h < c.n_heads; ++h)
                worst = std::max(worst, std::abs(lse[(static_cast<std::size_t>(l) * n + i) * c.n_heads + h] -
                                                 ref.layer_lse(l, i, h)));
    EXPECT_LT(worst, 1e-4);
}

TEST_P(ComputeCpuBackendFamily, StreamedWeightsMatchResidentWeights) {
    RandomCheckpointOptions o;
    o.dtype = GetParam().dtype;
    auto resident = make_fixture(GetParam().family, o);
    CpuBackendOptions stream;
    stream.weight_cache_bytes = 0;  // no fp32 copies: every GEMM widens its matrix tile by tile
    auto streamed = make_fixture(GetParam().family, o, stream);
    const int n = 9;
    const auto tokens = pattern_canvas(n, resident->ck.config.vocab_size, 3);
    const auto rows = row_range(0, n);
    auto c1 = resident->backend->make_cache(n);
    auto c2 = streamed->backend->make_cache(n);
    const auto a = run(*resident->backend, tokens, rows, *c1);
    const auto b = run(*streamed->backend, tokens, rows, *c2);
    // The same bits where both run sgemm; packed into panels (where the CPU has them), the
    // resident weights sum in another order.
    const bool panels = cpu::panel_width() > 0;
    for (int i = 0; i < n; ++i) {
        if (!panels) {
            EXPECT_EQ(a[i], b[i]) << "row " << i;
            continue;
        }
        ASSERT_EQ(a[i].size(), b[i].size());
        for (std::size_t j = 0; j < a[i].size(); ++j) EXPECT_NEAR(a[i][j], b[i][j], 1e-4) << "row " << i << ", logit " << j;
    }
}

INSTANTIATE_TEST_SUITE_P(ComputeFamilies, ComputeCpuBackendFamily,
                         testing::Values(FamilyCase{Family::Llada, DType::F32}, FamilyCase{Family::Llada, DType::BF16},
                                         FamilyCase{Family::Dream, DType::F32}, FamilyCase{Family::Dream, DType::BF16},
                                         FamilyCase{Family::Qwen2, DType::F32}, FamilyCase{Family::Qwen2, DType::BF16},
                                         FamilyCase{Family::Llada, DType::F16}),
                         case_name);

// rows = everything is the dense forward: one code path, so the result cannot depend on what the
// cache held before, nor on the backend instance.
TEST(ComputeCpuBackend, FullRowsAreTheDenseForwardBitForBit) {
    auto f = make_fixture(Family::Dream);
    const int n = 16;
    const auto tokens = pattern_canvas(n, f->ck.config.vocab_size);
    const auto rows = row_range(0, n);
    auto fresh = f->backend->make_cache(n);
    const auto a = run(*f->backend, tokens, rows, *fresh);
    auto dirty = f->backend->make_cache(n);
    run(*f->backend, pattern_canvas(n, f->ck.config.vocab_size, 9), rows, *dirty);  // other canvas cached
    const auto b = run(*f->backend, tokens, rows, *dirty);
    auto other_backend = make_cpu_backend(f->weights);
    auto c3 = other_backend->make_cache(n);
    const auto c = run(*other_backend, tokens, rows, *c3);
    for (int i = 0; i < n; ++i) {
        EXPECT_EQ(0, std::memcmp(a[i].data(), b[i].data(), a[i].size() * sizeof(float))) << "row " << i;
        EXPECT_EQ(0, std::memcmp(a[i].data(), c[i].data(), a[i].size() * sizeof(float))) << "row " << i;
    }
}

// After one dense forward, recomputing any subset with the cache gives the dense result for
// those rows. OpenBLAS's sgemm tiles rows by position within its register block, so a row's
// last bits can move by ~1 ulp when M changes: equality is to 1e-5, not bitwise.
TEST(ComputeCpuBackend, SubsetWithCacheEqualsDense) {
    for (Family family : {Family::Llada, Family::Dream, Family::Qwen2}) {
        auto f = make_fixture(family);
        const int n = 20;
        const auto tokens = pattern_canvas(n, f->ck.config.vocab_size, 1);
        auto cache = f->backend->make_cache(n);
        const auto dense = run(*f->backend, tokens, row_range(0, n), *cache);
        const std::vector<std::vector<int32_t>> subsets = {
            {0}, {19}, {3, 4, 5, 6}, {0, 2, 4, 6, 8, 10, 12, 14, 16, 18}, {1, 7, 8, 13, 17, 18, 19}};
        for (const auto& rows : subsets) {
            const auto sparse = run(*f->backend, tokens, rows, *cache);
            for (std::size_t i = 0; i < rows.size(); ++i)
                EXPECT_LT(max_diff(sparse[i], dense[rows[i]]), 1e-5) << family_name(family) << " row " << rows[i];
        }
    }
}

// Columns that are not recomputed are read from the cache as they are, even when the canvas
// changed there: the reference models that as an override by the earlier forward's K/V.
TEST(ComputeCpuBackend, SkippedRowsUseTheirCachedKeysAndValues) {
    auto f = make_fixture(Family::Llada);
    const int n = 14, V = f->ck.config.vocab_size;
    const auto before = pattern_canvas(n, V, 2);
    auto cache = f->backend->make_cache(n);
    run(*f->backend, before, row_range(0, n), *cache);
    auto after = before;
    const std::vector<int32_t> rows = {2, 5, 6, 11};
    for (int i = 0; i < n; ++i) after[i] = (after[i] + 17) % V;  // every token changes
    const auto sparse = run(*f->backend, after, rows, *cache);

    const ReferenceOutput ref_before = test::reference_forward(f->ck, before);
    ReferenceOverride stale;
    stale.k = ref_before.k;
    stale.v = ref_before.v;
    for (int i = 0; i < n; ++i)
        if (!std::binary_search(rows.begin(), rows.end(), i)) stale.positions.push_back(i);
    const ReferenceOutput ref = test::reference_forward(f->ck, after, &stale);
    EXPECT_LT(max_diff_vs_reference(sparse, rows, ref), 1e-4);
    // And it really differs from recomputing everything on the new canvas.
    const ReferenceOutput ref_fresh = test::reference_forward(f->ck, after);
    EXPECT_GT(max_diff_vs_reference(sparse, rows, ref_fresh), 1e-3);
}

TEST(ComputeCpuBackend, RowsComputedCountsExactly) {
    auto f = make_fixture(Family::Llada);
    const int n = 10;
    const auto tokens = pattern_canvas(n, f->ck.config.vocab_size);
    auto cache = f->backend->make_cache(n);
    EXPECT_EQ(f->backend->rows_computed(), 0u);
    run(*f->backend, tokens, row_range(0, n), *cache);
    EXPECT_EQ(f->backend->rows_computed(), 10u);
    run(*f->backend, tokens, {1, 4, 9}, *cache);
    EXPECT_EQ(f->backend->rows_computed(), 13u);
    run(*f->backend, tokens, {}, *cache);
    EXPECT_EQ(f->backend->rows_computed(), 13u);
}

TEST(ComputeCpuBackend, BadRequestsThrowAndComputeNothing) {
    auto f = make_fixture(Family::Dream, [] {
        RandomCheckpointOptions o;
        o.max_seq_len = 32;
        return o;
    }());
    Backend& be = *f->backend;
    const int n = 8, V = f->ck.config.vocab_size;
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
    auto item = [&] {
        ForwardItem it;
        it.tokens = tokens;
        it.rows = rows;
        it.cache = cache.get();
        return it;
    };
    {
        ForwardItem it = item();
        const std::vector<int32_t> r = {0, 8};
        it.rows = r;
        expect_error(it, "outside the canvas");
    }
    {
        ForwardItem it = item();
        const std::vector<int32_t> r = {3, 2};
        it.rows = r;
        expect_error(it, "ascending");
    }
    {
        ForwardItem it = item();
        const std::vector<int32_t> r = {2, 2};
        it.rows = r;
        expect_error(it, "ascending and unique");
    }
    {
        ForwardItem it = item();
        const std::vector<int32_t> r = {1, 2}, h = {3};
        it.rows = r;
        it.head_rows = h;
        expect_error(it, "head row 3 is not among the computed rows");
    }
    {
        ForwardItem it = item();
        auto bad = tokens;
        bad[4] = V;
        it.tokens = bad;
        expect_error(it, "token id " + std::to_string(V) + " at position 4");
    }
    {
        ForwardItem it = item();
        const std::vector<int32_t> r = {1, 2};
        it.rows = r;  // nothing cached yet
        expect_error(it, "position 0 has no cached K/V");
    }
    {
        auto long_tokens = pattern_canvas(40, V);
        auto big = be.make_cache(40);
        ForwardItem it = item();
        it.tokens = long_tokens;
        it.cache = big.get();
        expect_error(it, "longer than the model's context");
    }
    {
        auto small = be.make_cache(4);
        ForwardItem it = item();
        it.cache = small.get();
        expect_error(it, "holds 4 positions");
    }
    {
        ForwardItem it = item();
        it.cache = nullptr;
        expect_error(it, "no K/V cache");
    }
    {
        ForwardItem it = item();
        KvOverride o;
        o.positions = {1};
        o.source = cache.get();
        it.kv_override = &o;
        expect_error(it, "snapshot");
    }
    {
        auto source = be.make_cache(n);
        ForwardItem it = item();
        KvOverride o;
        o.positions = {1};
        o.source = source.get();
        it.kv_override = &o;
        expect_error(it, "override position 1 has no K/V");
    }
    {
        auto source = be.make_cache(n);
        ForwardItem it = item();
        KvOverride o;
        o.source = source.get();
        o.verifier_offset = 2;
        it.kv_override = &o;
        expect_error(it, "verifier offset 2");
    }
    {
        ForwardItem a = item(), b = item();
        ForwardItem both[2] = {a, b};
        try {
            be.forward(both);
            ADD_FAILURE() << "shared cache accepted";
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find("shares its K/V cache"), std::string::npos) << e.what();
        }
    }
    EXPECT_EQ(be.rows_computed(), 0u);
    EXPECT_FALSE(cache->has(0));
    EXPECT_THROW(be.logits(5, 0), Error);
}

// COVER: seeds are masked in the canvas, their previous K/V are injected for every other query,
// and (self_sees_fresh) the row verifying each seed sees its fresh K/V — the seed's own row, or
// the row before it (verifier offset 1, shifted logits): checked against the reference's
// independent implementation of the same view, including the per-layer lse.
TEST(ComputeCpuBackend, KvOverrideMatchesReferenceView) {
    for (Family family : {Family::Llada, Family::Dream})
    for (int offset : {0, 1}) {
        for (bool self_sees_fresh : {true, false}) {
            auto f = make_fixture(family);
            const int n = 12, V = f->ck.config.vocab_size;
            const int mask = f->ck.config.mask_token_id;
            const auto previous = pattern_canvas(n, V, 4);
            auto prev_cache = f->backend->make_cache(n);
            run(*f->backend, previous, row_range(0, n), *prev_cache);
            const std::vector<int32_t> seeds = {3, 8};
            auto snapshot = f->backend->make_cache(n);
            snapshot->copy_rows_from(*prev_cache, seeds);

            auto current = previous;
            for (int s : seeds) current[s] = mask;
            current[10] = (current[10] + 1) % V;  // a drafted token changed too
            KvOverride o;
            o.positions = seeds;
            o.source = snapshot.get();
            o.self_sees_fresh = self_sees_fresh;
            o.verifier_offset = offset;
            auto cache = f->backend->make_cache(n);
            const auto rows = row_range(0, n);
            const auto logits = run(*f->backend, current, rows, *cache, &o, true);

            const ReferenceOutput ref_prev = test::reference_forward(f->ck, previous);
            ReferenceOverride ro;
            ro.positions = seeds;
            ro.k = ref_prev.k;
            ro.v = ref_prev.v;
            ro.self_sees_fresh = self_sees_fresh;
            ro.verifier_offset = offset;
            const ReferenceOutput ref = test::reference_forward(f->ck, current, &ro);
            const std::string what = std::string(family_name(family)) + (self_sees_fresh ? " fresh" : " stale") +
                                     " offset " + std::to_string(offset);
            EXPECT_LT(max_diff_vs_reference(logits, rows, ref), 1e-4) << what;
            const auto lse = f->backend->attention_lse(0);
            const ModelConfig& c = f->ck.config;
            double worst = 0;
            for (int l = 0; l < c.n_layers; ++l)
                for (int i = 0; i < n; ++i)
                    for (int h = 0; h < c.n_heads; ++h)
                        worst = std::max(worst, std::abs(lse[(static_cast<std::size_t>(l) * n + i) * c.n_heads + h] -
                                                         ref.layer_lse(l, i, h)));
            EXPECT_LT(worst, 1e-4) << what;
            // The override changes things: without it every row sees the masked seeds.
            const ReferenceOutput plain = test::reference_forward(f->ck, current);
            EXPECT_GT(max_diff_vs_reference({logits[0]}, {0}, plain), 1e-3) << what;
            // The fresh K/V of the seeds went into the item's cache (what the next step snapshots).
            EXPECT_TRUE(cache->has(3));
        }
    }
}

// Causal (qwen2): a row never sees later keys, so later tokens cannot change earlier rows, and
// a prefix can be computed before the rest of the canvas has any K/V.
TEST(ComputeCpuBackend, CausalAttentionIgnoresLaterKeys) {
    auto f = make_fixture(Family::Qwen2);
    const int n = 12, V = f->ck.config.vocab_size;
    const auto a = pattern_canvas(n, V, 5);
    auto b = a;
    for (int i = 8; i < n; ++i) b[i] = (b[i] + 9) % V;
    auto ca = f->backend->make_cache(n), cb = f->backend->make_cache(n);
    const auto la = run(*f->backend, a, row_range(0, n), *ca);
    const auto lb = run(*f->backend, b, row_range(0, n), *cb);
    for (int i = 0; i < 8; ++i) EXPECT_EQ(la[i], lb[i]) << "row " << i;
    EXPECT_NE(la[8], lb[8]);
    // So a causal row cannot verify the column after it (an override's verifier offset 1).
    auto source = f->backend->make_cache(n);
    const std::vector<int32_t> seed = {3};
    source->copy_rows_from(*ca, seed);
    KvOverride o;
    o.positions = seed;
    o.source = source.get();
    o.verifier_offset = 1;
    auto cc = f->backend->make_cache(n);
    try {
        run(*f->backend, a, row_range(0, n), *cc, &o);
        ADD_FAILURE() << "a causal model accepted a verifier offset of 1";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("needs a bidirectional model"), std::string::npos) << e.what();
    }

    // Prefill 0..5 with nothing cached after it, then extend with 6..11.
    auto inc = f->backend->make_cache(n);
    std::vector<int32_t> prefix = {0, 1, 2, 3, 4, 5}, rest = {6, 7, 8, 9, 10, 11};
    const auto lp = run(*f->backend, a, prefix, *inc);
    const auto lr = run(*f->backend, a, rest, *inc);
    for (int i = 0; i < 6; ++i) EXPECT_LT(max_diff(lp[i], la[i]), 1e-5);
    for (int i = 0; i < 6; ++i) EXPECT_LT(max_diff(lr[i], la[6 + i]), 1e-5);
    const ReferenceOutput ref = test::reference_forward(f->ck, a);
    EXPECT_LT(max_diff_vs_reference(lr, rest, ref), 1e-4);
}

TEST(ComputeCpuBackend, BatchEqualsSeparateCalls) {
    auto f = make_fixture(Family::Dream);
    const int n = 10, V = f->ck.config.vocab_size;
    const auto t0 = pattern_canvas(n, V, 1), t1 = pattern_canvas(n, V, 2);
    auto c0 = f->backend->make_cache(n), c1 = f->backend->make_cache(n);
    run(*f->backend, t0, row_range(0, n), *c0);
    const std::vector<int32_t> rows0 = {1, 2, 3, 7}, head0 = {2, 7};
    const auto rows1 = row_range(0, n);
    const std::vector<int32_t> head1 = {0, 9};
    // Separate calls.
    auto s0 = f->backend->make_cache(n), s1 = f->backend->make_cache(n);
    s0->copy_rows_from(*c0, row_range(0, n));
    ForwardItem a;
    a.tokens = t0;
    a.rows = rows0;
    a.head_rows = head0;
    a.cache = s0.get();
    a.want_lse = true;
    f->backend->forward(std::span<const ForwardItem>(&a, 1));
    const auto a0 = f->backend->logits(0, 0), a1 = f->backend->logits(0, 1);
    const auto a_lse = f->backend->attention_lse(0);
    ForwardItem b;
    b.tokens = t1;
    b.rows = rows1;
    b.head_rows = head1;
    b.cache = s1.get();
    f->backend->forward(std::span<const ForwardItem>(&b, 1));
    const auto b0 = f->backend->logits(0, 0), b1 = f->backend->logits(0, 1);
    // One batch.
    ForwardItem batch[2] = {a, b};
    batch[0].cache = c0.get();
    batch[1].cache = c1.get();
    const uint64_t before = f->backend->rows_computed();
    f->backend->forward(batch);
    EXPECT_EQ(f->backend->rows_computed() - before, rows0.size() + rows1.size());
    EXPECT_EQ(f->backend->logits(0, 0), a0);
    EXPECT_EQ(f->backend->logits(0, 1), a1);
    EXPECT_EQ(f->backend->logits(1, 0), b0);
    EXPECT_EQ(f->backend->logits(1, 1), b1);
    EXPECT_EQ(f->backend->attention_lse(0), a_lse);
    EXPECT_TRUE(f->backend->attention_lse(1).empty());
}

// row_stats applies CFG with the unconditional item's same head row, and keeps posteriors for
// the next step's KL.
TEST(ComputeCpuBackend, RowStatsCfgAndPosteriorStore) {
    auto f = make_fixture(Family::Llada);
    Backend& be = *f->backend;
    const int n = 8, V = f->ck.config.vocab_size;
    const int mask = f->ck.config.mask_token_id;
    auto cond = pattern_canvas(n, V, 6);
    for (int i = 4; i < n; ++i) cond[i] = mask;
    auto uncond = cond;
    for (int i = 0; i < 4; ++i) uncond[i] = mask;  // LLaDA CFG: prompt replaced by masks
    const std::vector<int32_t> rows = row_range(0, n), head = {4, 5, 6, 7};
    auto c0 = be.make_cache(n), c1 = be.make_cache(n);
    ForwardItem items[2];
    items[0].tokens = cond;
    items[1].tokens = uncond;
    for (int i = 0; i < 2; ++i) {
        items[i].rows = rows;
        items[i].head_rows = head;
    }
    items[0].cache = c0.get();
    items[1].cache = c1.get();
    be.forward(items);

    auto store = be.make_posterior_store(n);
    const std::vector<int32_t> index = {0, 1, 2, 3}, positions = {4, 5, 6, 7};
    RowStatsRequest req;
    req.item = 0;
    req.head_row_index = index;
    req.positions = positions;
    req.cfg_uncond_item = 1;
    req.cfg_scale = 1.5;
    req.posteriors = store.get();
    const auto stats = be.row_stats(req);
    ASSERT_EQ(stats.size(), 4u);
    for (int r = 0; r < 4; ++r) {
        const auto c = be.logits(0, r), u = be.logits(1, r);
        std::vector<float> combined(static_cast<std::size_t>(V));
        for (int t = 0; t < V; ++t) combined[t] = static_cast<float>(u[t] + 2.5 * (static_cast<double>(c[t]) - u[t]));
        RowStatsRequest plain;
        const RowStats expect = compute_row_stats(combined, positions[r], plain, {}, {});
        EXPECT_EQ(stats[r].argmax, expect.argmax);
        EXPECT_FLOAT_EQ(stats[r].p_max, expect.p_max);
        EXPECT_FLOAT_EQ(stats[r].entropy, expect.entropy);
        EXPECT_TRUE(std::isnan(stats[r].kl_prev));
        EXPECT_TRUE(store->has(positions[r]));
        // Without CFG the statistics differ (the guidance did something).
        const RowStats raw = compute_row_stats(c, positions[r], plain, {}, {});
        EXPECT_NE(raw.entropy, stats[r].entropy);
    }
    // Second step: same logits again, so KL to the stored posterior is ~0; store keeps updating.
    const auto again = be.row_stats(req);
    for (const RowStats& s : again) {
        EXPECT_FALSE(std::isnan(s.kl_prev));
        EXPECT_NEAR(s.kl_prev, 0.0, 1e-6);
    }
    store->erase(5);
    const auto third = be.row_stats(req);
    EXPECT_TRUE(std::isnan(third[1].kl_prev));
    EXPECT_FALSE(std::isnan(third[0].kl_prev));

    RowStatsRequest bad = req;
    bad.cfg_uncond_item = 0;
    EXPECT_THROW(be.row_stats(bad), Error);
    const std::vector<int32_t> dup = {4, 4};
    const std::vector<int32_t> two = {0, 1};
    bad = req;
    bad.positions = dup;
    bad.head_row_index = two;
    EXPECT_THROW(be.row_stats(bad), Error);
    const std::vector<int32_t> out_of_range = {9};
    const std::vector<int32_t> one = {0};
    bad = req;
    bad.head_row_index = out_of_range;
    bad.positions = one;
    EXPECT_THROW(be.row_stats(bad), Error);
}

TEST(ComputeCpuBackend, KvCacheCopyAndClear) {
    auto f = make_fixture(Family::Dream);
    const int n = 6;
    auto a = f->backend->make_cache(n), b = f->backend->make_cache(n);
    run(*f->backend, pattern_canvas(n, f->ck.config.vocab_size), row_range(0, n), *a);
    for (int i = 0; i < n; ++i) EXPECT_TRUE(a->has(i));
    const std::vector<int32_t> some = {1, 4};
    b->copy_rows_from(*a, some);
    EXPECT_TRUE(b->has(1));
    EXPECT_TRUE(b->has(4));
    EXPECT_FALSE(b->has(0));
    EXPECT_FALSE(b->has(-1));
    EXPECT_FALSE(b->has(n));
    a->clear();
    EXPECT_FALSE(a->has(1));
    const std::vector<int32_t> outside = {n};
    EXPECT_THROW(b->copy_rows_from(*a, outside), Error);
}

}  // namespace
}  // namespace dlm

namespace dlm {
namespace {

// A cache made for a longer canvas serves a shorter one (e.g. an AR guider's growing prefix).
TEST(ComputeCpuBackend, CacheLongerThanCanvasServesIt) {
    auto f = make_fixture(Family::Qwen2);
    const int V = f->ck.config.vocab_size;
    auto cache = f->backend->make_cache(32);
    const auto tokens = pattern_canvas(10, V, 8);
    const auto logits = run(*f->backend, tokens, row_range(0, 10), *cache);
    EXPECT_FALSE(cache->has(10));
    const ReferenceOutput ref = test::reference_forward(f->ck, tokens);
    EXPECT_LT(max_diff_vs_reference(logits, row_range(0, 10), ref), 1e-4);
}

}  // namespace
}  // namespace dlm

namespace dlm {
namespace {

// More pool threads than rows or cores: the partition changes, the results must not (beyond
// OpenBLAS's own per-thread tiling).
TEST(ComputeCpuBackend, ThreadCountDoesNotChangeResults) {
    auto f = make_fixture(Family::Dream);
    const int n = 11;
    const auto tokens = pattern_canvas(n, f->ck.config.vocab_size, 12);
    auto c1 = f->backend->make_cache(n);
    const auto base = run(*f->backend, tokens, row_range(0, n), *c1);
    for (int threads : {1, 7}) {
        CpuBackendOptions o;
        o.threads = threads;
        auto be = make_cpu_backend(f->weights, o);
        auto c = be->make_cache(n);
        const auto l = run(*be, tokens, row_range(0, n), *c);
        for (int i = 0; i < n; ++i) EXPECT_LT(max_diff(l[i], base[i]), 1e-5) << threads << " threads, row " << i;
    }
    CpuBackendOptions restore;
    restore.threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    make_cpu_backend(f->weights, restore);  // OpenBLAS's thread count is process-wide
}

// Automatic threads: one for a small model (its GEMMs are too small to share, and spare threads
// spin against whatever else runs), all cores for a large one.
TEST(ComputeCpuBackend, DefaultThreadsFollowTheModelSize) {
    ModelConfig small = make_fixture(Family::Llada)->ck.config;
    EXPECT_EQ(cpu_default_threads(small), 1);
    const ModelConfig big = load_model_config(std::string(DLM_TEST_DATA_DIR) + "/llada-8b-config.json");
    EXPECT_EQ(cpu_default_threads(big), static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
}

}  // namespace
}  // namespace dlm
