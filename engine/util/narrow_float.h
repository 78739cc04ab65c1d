#pragma once
// A double read from a file or a network message, as a float. A value past the float range (a
// hostile trace's 1e300) becomes ±infinity instead of the undefined behaviour of a plain cast.
#include <limits>

namespace dlm {

inline float narrow_to_float(double d) {
    constexpr double kMax = std::numeric_limits<float>::max();
    if (d > kMax) return std::numeric_limits<float>::infinity();
    if (d < -kMax) return -std::numeric_limits<float>::infinity();
    return static_cast<float>(d);  // NaN stays NaN
}

}  // namespace dlm
