#pragma once
// The median of timed repetitions: what every benchmark reports (robust to a stray slow rep).
#include <vector>

namespace dlm {

// Median of `v` (mean of the two middle values for an even count); 0 for an empty vector.
double median(std::vector<double> v);

}  // namespace dlm
