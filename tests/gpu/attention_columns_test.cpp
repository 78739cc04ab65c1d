// The attention kernel's per-tile shortcut, checked on the host (no GPU needed): a tile is spared
// the per-score mask test only when HiddenColumns::hides_any says none of its columns is hidden,
// so hides_any must agree with hides() column by column for every kind of hidden column.
#include <gtest/gtest.h>

#include <climits>
#include <random>

#include "attention_columns.cuh"

namespace {

using dlm::cuda::HiddenColumns;

bool brute_force(const HiddenColumns& h, int first, int end) {
    for (int c = first; c < end; ++c)
        if (h.hides(c)) return true;
    return false;
}

TEST(AttentionColumns, HidesAnyAgreesWithEachColumn) {
    std::mt19937 rng(7);
    auto pick = [&rng](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    int tiles_with_hidden = 0, tiles_without = 0;
    for (int trial = 0; trial < 20000; ++trial) {
        HiddenColumns h;
        // Each rule alone or together, as ColumnVisibility::for_row makes them (causal limit,
        // a shadow row's twin, the shadow block a real row misses), plus empty ranges.
        if (pick(0, 1)) h.last = pick(-1, 300);
        if (pick(0, 2) == 0) h.twin = pick(0, 300);
        if (pick(0, 1)) {
            h.hidden_first = pick(0, 300);
            h.hidden_end = h.hidden_first + pick(0, 40);
        }
        const int first = pick(0, 300), end = first + pick(0, 64);
        const bool want = brute_force(h, first, end);
        ASSERT_EQ(h.hides_any(first, end), want)
            << "last " << h.last << " twin " << h.twin << " hidden [" << h.hidden_first << ", " << h.hidden_end
            << ") tile [" << first << ", " << end << ")";
        (want ? tiles_with_hidden : tiles_without) += 1;
    }
    // Both answers occur often: the check is not one-sided.
    EXPECT_GT(tiles_with_hidden, 2000);
    EXPECT_GT(tiles_without, 2000);
}

TEST(AttentionColumns, DefaultRowHidesNothing) {
    const HiddenColumns open;
    EXPECT_FALSE(open.hides_any(0, INT_MAX / 2));
    EXPECT_FALSE(open.hides(0));
}

}  // namespace
