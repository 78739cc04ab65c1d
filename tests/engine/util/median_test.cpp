#include <gtest/gtest.h>

#include "util/median.h"

namespace dlm {
namespace {

TEST(UtilMedian, OddEvenAndEmpty) {
    EXPECT_DOUBLE_EQ(median({3.0, 1.0, 2.0}), 2.0);
    EXPECT_DOUBLE_EQ(median({4.0, 1.0, 3.0, 2.0}), 2.5);
    EXPECT_DOUBLE_EQ(median({7.0}), 7.0);
    EXPECT_DOUBLE_EQ(median({}), 0.0);
    EXPECT_DOUBLE_EQ(median({1.0, 100.0, 2.0}), 2.0);  // one slow rep does not move it
}

}  // namespace
}  // namespace dlm
