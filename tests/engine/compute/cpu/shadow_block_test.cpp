// WINO's shadow block on the CPU backend (ForwardItem::shadow, ::position_ids): every row against
// the independent double-precision reference run with the same visibility written out as an
// explicit boolean matrix, real rows untouched by the shadow columns, shadow rows served from
// cached columns, and the requests a backend must refuse.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "compute/attention_layout.h"
#include "compute/cpu/cpu_backend.h"
#include "support/random_checkpoint.h"
#include "support/reference_forward.h"
#include "util/error.h"

namespace dlm {
namespace {

using test::row_range;
using test::ReferenceLayout;
using test::ReferenceOutput;

struct ShadowFixture : test::RandomModel {
    ShadowFixture() : RandomModel("dlm-shadow-test") {}
    std::unique_ptr<Backend> backend;
};

std::unique_ptr<ShadowFixture> make_shadow_fixture(Family family) {
    auto f = std::make_unique<ShadowFixture>();
    test::load_random_model(*f, family);
    f->backend = make_cpu_backend(f->weights, {std::size_t(1) << 30, 1});
    return f;
}

// A WINO canvas: prompt, a generated region with some masks, then `count` shadow [MASK] columns
// whose twins are [twin_first, twin_first + count).
struct ShadowCanvas {
    std::vector<int32_t> tokens, position_ids;
    ShadowBlock shadow;
    int n = 0;  // canvas columns without the shadow block
};

ShadowCanvas make_shadow_canvas(const ModelConfig& c, int n, int twin_first, int count) {
    ShadowCanvas s;
    s.n = n;
    const int32_t mask = c.mask_token_id >= 0 ? c.mask_token_id : 0;  // causal models have none
    for (int i = 0; i < n; ++i) s.tokens.push_back((i * 37 + 5) % c.vocab_size);
    for (int i : {n - 1, n - 2, twin_first + 1}) s.tokens[static_cast<std::size_t>(i)] = mask;
    s.tokens.resize(static_cast<std::size_t>(n + count), mask);
    s.position_ids.resize(static_cast<std::size_t>(n + count));
    std::iota(s.position_ids.begin(), s.position_ids.begin() + n, 0);
    std::iota(s.position_ids.begin() + n, s.position_ids.end(), twin_first);
    s.shadow = ShadowBlock{n, twin_first, count};
    return s;
}

// WINO's mask, written position by position: no real row sees the shadow
// block; a shadow row sees the whole shadow block and every real column except its own twin.
ReferenceLayout explicit_layout(const ShadowCanvas& s) {
    const int total = static_cast<int>(s.tokens.size());
    ReferenceLayout l;
    l.position_ids = s.position_ids;
    l.visible.assign(static_cast<std::size_t>(total) * total, 0);
    for (int q = 0; q < total; ++q)
        for (int k = 0; k < total; ++k) {
            const bool q_shadow = q >= s.n, k_shadow = k >= s.n;
            bool see = true;
            if (!q_shadow && k_shadow) see = false;
            if (q_shadow && !k_shadow && k == s.shadow.twin_first + (q - s.n)) see = false;
            l.visible[static_cast<std::size_t>(q) * total + k] = see ? 1 : 0;
        }
    return l;
}

ForwardItem shadow_item(const ShadowCanvas& s, const std::vector<int32_t>& rows, KvCache& cache) {
    ForwardItem it;
    it.tokens = s.tokens;
    it.rows = rows;
    it.head_rows = rows;
    it.cache = &cache;
    it.position_ids = s.position_ids;
    it.shadow = s.shadow;
    return it;
}

double worst_vs_reference(const Backend& be, const std::vector<int32_t>& rows, const ReferenceOutput& ref) {
    double worst = 0;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const auto l = be.logits(0, static_cast<int>(i));
        for (int t = 0; t < ref.vocab; ++t) worst = std::max(worst, std::abs(l[t] - ref.logit(rows[i], t)));
    }
    return worst;
}

TEST(ComputeCpuShadowBlock, EveryRowMatchesTheExplicitMaskReference) {
    for (Family family : {Family::Llada, Family::Dream}) {  // MHA and GQA with biases
        auto f = make_shadow_fixture(family);
        const ModelConfig& c = f->ck.config;
        const int n = 15, twin_first = 9, count = 4;
        const ShadowCanvas s = make_shadow_canvas(c, n, twin_first, count);
        const auto rows = row_range(0, n + count);
        auto cache = f->backend->make_cache(n + count);
        const ForwardItem it = shadow_item(s, rows, *cache);
        f->backend->forward(std::span<const ForwardItem>(&it, 1));

        const ReferenceLayout layout = explicit_layout(s);
        const ReferenceOutput ref = test::reference_forward(f->ck, s.tokens, nullptr, &layout);
        const std::string what(family_name(family));
        EXPECT_LT(worst_vs_reference(*f->backend, rows, ref), 1e-4) << what;

        // The shadow changes the prediction: it is neither the plain forward's row at the shadow
        // column nor the twin's own row (which sees its token).
        const ReferenceOutput plain = test::reference_forward(f->ck, s.tokens);
        double moved = 0, from_twin = 0;
        for (int t = 0; t < ref.vocab; ++t) {
            moved = std::max(moved, std::abs(ref.logit(n, t) - plain.logit(n, t)));
            from_twin = std::max(from_twin, std::abs(ref.logit(n, t) - ref.logit(twin_first, t)));
        }
        EXPECT_GT(moved, 1e-3) << what;
        EXPECT_GT(from_twin, 1e-3) << what;
    }
}

// No real row sees a shadow column, so the real rows equal the forward of the canvas alone (up to
// the last bits sgemm's tiling gives a different row count).
TEST(ComputeCpuShadowBlock, RealRowsEqualTheForwardWithoutTheShadowBlock) {
    auto f = make_shadow_fixture(Family::Llada);
    const ModelConfig& c = f->ck.config;
    const int n = 14, twin_first = 6, count = 5;
    const ShadowCanvas s = make_shadow_canvas(c, n, twin_first, count);
    const auto all = row_range(0, n + count);
    auto cache = f->backend->make_cache(n + count);
    const ForwardItem it = shadow_item(s, all, *cache);
    f->backend->forward(std::span<const ForwardItem>(&it, 1));
    std::vector<std::vector<float>> with_shadow;
    for (int i = 0; i < n; ++i) with_shadow.push_back(f->backend->logits(0, i));

    const std::vector<int32_t> canvas(s.tokens.begin(), s.tokens.begin() + n);
    const auto rows = row_range(0, n);
    auto plain_cache = f->backend->make_cache(n);
    ForwardItem plain;
    plain.tokens = canvas;
    plain.rows = rows;
    plain.head_rows = rows;
    plain.cache = plain_cache.get();
    f->backend->forward(std::span<const ForwardItem>(&plain, 1));
    double worst = 0;
    for (int i = 0; i < n; ++i) {
        const auto l = f->backend->logits(0, i);
        for (std::size_t t = 0; t < l.size(); ++t)
            worst = std::max(worst, static_cast<double>(std::abs(l[t] - with_shadow[static_cast<std::size_t>(i)][t])));
    }
    EXPECT_LT(worst, 1e-5);
}

// K/V stay indexed by canvas column: a forward that computes only the shadow rows, reading every
// real column from the cache, gives the shadow rows of the full forward.
TEST(ComputeCpuShadowBlock, ShadowRowsReadCachedRealColumns) {
    auto f = make_shadow_fixture(Family::Llada);
    const ModelConfig& c = f->ck.config;
    const int n = 12, twin_first = 4, count = 4;
    const ShadowCanvas s = make_shadow_canvas(c, n, twin_first, count);
    auto cache = f->backend->make_cache(n + count);
    const auto all = row_range(0, n + count);
    const ForwardItem full = shadow_item(s, all, *cache);
    f->backend->forward(std::span<const ForwardItem>(&full, 1));
    std::vector<std::vector<float>> expected;
    for (int i = n; i < n + count; ++i) expected.push_back(f->backend->logits(0, i));

    const uint64_t before = f->backend->rows_computed();
    const auto shadow_rows = row_range(n, count);
    const ForwardItem part = shadow_item(s, shadow_rows, *cache);
    f->backend->forward(std::span<const ForwardItem>(&part, 1));
    EXPECT_EQ(f->backend->rows_computed() - before, static_cast<uint64_t>(count));
    double worst = 0;
    for (int i = 0; i < count; ++i) {
        const auto l = f->backend->logits(0, i);
        for (std::size_t t = 0; t < l.size(); ++t)
            worst = std::max(worst, static_cast<double>(std::abs(l[t] - expected[static_cast<std::size_t>(i)][t])));
    }
    EXPECT_LT(worst, 1e-5);
}

// Position ids alone (no shadow block): a canvas rotated as if it sat further right equals the
// reference at those positions, and differs from the identity positions.
TEST(ComputeCpuShadowBlock, ExplicitPositionIdsMatchTheReference) {
    auto f = make_shadow_fixture(Family::Llada);
    const ModelConfig& c = f->ck.config;
    const int n = 10;
    std::vector<int32_t> tokens;
    for (int i = 0; i < n; ++i) tokens.push_back((i * 11 + 3) % c.vocab_size);
    std::vector<int32_t> positions;
    for (int i = 0; i < n; ++i) positions.push_back(3 * i + 7);
    const auto rows = row_range(0, n);
    auto cache = f->backend->make_cache(n);
    ForwardItem it;
    it.tokens = tokens;
    it.rows = rows;
    it.head_rows = rows;
    it.cache = cache.get();
    it.position_ids = positions;
    f->backend->forward(std::span<const ForwardItem>(&it, 1));
    ReferenceLayout layout;
    layout.position_ids = positions;
    const ReferenceOutput ref = test::reference_forward(f->ck, tokens, nullptr, &layout);
    EXPECT_LT(worst_vs_reference(*f->backend, rows, ref), 1e-4);
    const ReferenceOutput identity = test::reference_forward(f->ck, tokens);
    EXPECT_GT(worst_vs_reference(*f->backend, rows, identity), 1e-3);
}

TEST(ComputeCpuShadowBlock, MalformedLayoutsAreRefusedBeforeAnyWork) {
    auto f = make_shadow_fixture(Family::Llada);
    const ModelConfig& c = f->ck.config;
    const int n = 10, count = 3;
    const auto all = row_range(0, n + count);
    auto cache = f->backend->make_cache(n + count);
    auto expect_refused = [&](ShadowCanvas s, const std::string& needle) {
        const ForwardItem it = shadow_item(s, all, *cache);
        try {
            f->backend->forward(std::span<const ForwardItem>(&it, 1));
            ADD_FAILURE() << "accepted a layout that should be refused: " << needle;
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
        }
    };
    const ShadowCanvas good = make_shadow_canvas(c, n, 4, count);
    ShadowCanvas s = good;
    s.shadow.twin_first = 9;  // twins [9, 12) overlap the shadow block [10, 13)
    expect_refused(s, "overlaps");
    s = good;
    s.shadow.first = 11;  // [11, 14) runs past the 13 columns
    expect_refused(s, "outside the canvas");
    s = good;
    s.position_ids.pop_back();
    expect_refused(s, "position ids");
    s = good;
    s.position_ids[2] = c.max_seq_len;
    expect_refused(s, "context");
    s = good;
    s.shadow.count = -1;
    expect_refused(s, "negative");
    EXPECT_EQ(f->backend->rows_computed(), 0u);
    EXPECT_FALSE(cache->has(0));

    // A causal model has no leave-one-out view to give.
    auto causal = make_shadow_fixture(Family::Qwen2);
    auto causal_cache = causal->backend->make_cache(n + count);
    const ShadowCanvas cs = make_shadow_canvas(causal->ck.config, n, 4, count);
    const ForwardItem it = shadow_item(cs, all, *causal_cache);
    try {
        causal->backend->forward(std::span<const ForwardItem>(&it, 1));
        ADD_FAILURE() << "a shadow block on a causal model was accepted";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("bidirectional"), std::string::npos) << e.what();
    }

    // What a backend without the feature says.
    const ForwardItem plain_item = shadow_item(good, all, *cache);
    try {
        refuse_custom_attention_layout(plain_item, "cuda", "forward item 0: ");
        ADD_FAILURE() << "a shadow block was not refused";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("cuda backend does not support shadow blocks"), std::string::npos) << e.what();
    }
    ForwardItem none;
    EXPECT_NO_THROW(refuse_custom_attention_layout(none, "cuda", ""));
    EXPECT_FALSE(has_custom_attention_layout(none));
    EXPECT_TRUE(has_custom_attention_layout(plain_item));
}

TEST(ComputeCpuShadowBlock, VisibilityRule) {
    const ShadowBlock s{10, 4, 3};  // shadow columns 10..12, twins 4..6
    EXPECT_TRUE(s.visible(0, 4));
    EXPECT_FALSE(s.visible(0, 10));   // real rows never see shadow columns
    EXPECT_FALSE(s.visible(5, 12));
    EXPECT_FALSE(s.visible(10, 4));   // shadow row 10's twin is 4
    EXPECT_TRUE(s.visible(10, 5));
    EXPECT_FALSE(s.visible(11, 5));
    EXPECT_TRUE(s.visible(11, 10));   // shadows see each other and themselves
    EXPECT_TRUE(s.visible(12, 12));
    const ShadowBlock none;
    EXPECT_TRUE(none.visible(3, 3));
    EXPECT_FALSE(none.active());
}

}  // namespace
}  // namespace dlm
