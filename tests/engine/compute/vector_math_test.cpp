#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "compute/vector_math.h"

namespace dlm {
namespace {

TEST(VectorMath, ExpMatchesLibmOverTheNonPositiveRange) {
    double worst = 0.0;
    for (double x = -708.0; x <= 0.0; x += 0.00713) {
        const double want = std::exp(x);
        worst = std::max(worst, std::fabs(vmath::exp_nonpositive(x) - want) / want);
    }
    EXPECT_LT(worst, 1e-12);
    EXPECT_EQ(vmath::exp_nonpositive(0.0), 1.0);
    EXPECT_NEAR(vmath::exp_nonpositive(-std::log(2.0)), 0.5, 1e-15);
    // Below the normal range, and minus infinity (a suppressed token), give exactly 0.
    EXPECT_EQ(vmath::exp_nonpositive(-750.0), 0.0);
    EXPECT_EQ(vmath::exp_nonpositive(-std::numeric_limits<double>::infinity()), 0.0);
}

TEST(VectorMath, LogMatchesLibmForProbabilities) {
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> exponent(-69.0, 0.0);
    double worst = 0.0;
    for (int i = 0; i < 200000; ++i) {
        const auto x = static_cast<float>(std::exp(exponent(rng)));
        worst = std::max(worst, std::fabs(vmath::log_positive(x) - std::log(static_cast<double>(x))));
    }
    // Both sides of the fold at sqrt(2) and the powers of two.
    for (float x : {1.0f, 0.5f, 0.25f, 1.4142134f, 1.4142137f, 0.70710677f, 1e-30f, 0.99999994f}) {
        worst = std::max(worst, std::fabs(vmath::log_positive(x) - std::log(static_cast<double>(x))));
    }
    EXPECT_LT(worst, 1e-10);
    EXPECT_EQ(vmath::log_positive(1.0f), 0.0);
}

}  // namespace
}  // namespace dlm
