#include "decode/transfer_schedule.h"

#include <string>

#include "util/error.h"

namespace dlm {

std::vector<int> llada_transfer_counts(int masks, int steps) {
    if (steps <= 0) throw Error("transfer schedule: steps must be positive (got " + std::to_string(steps) + ")");
    if (masks < 0) throw Error("transfer schedule: negative mask count");
    std::vector<int> counts(static_cast<std::size_t>(steps), masks / steps);
    for (int i = 0; i < masks % steps; ++i) ++counts[static_cast<std::size_t>(i)];
    return counts;
}

std::vector<float> dream_timesteps(int steps, double eps) {
    if (steps <= 0) throw Error("dream timesteps: steps must be positive (got " + std::to_string(steps) + ")");
    const int n = steps + 1;
    const float start = 1.0f;
    const float end = static_cast<float>(eps);
    // torch's linspace kernel (RangeFactories): the step in the tensor's dtype, then each half
    // computed from its own end so that both endpoints are exact.
    const float step = (end - start) / static_cast<float>(n - 1);
    const int halfway = n / 2;
    std::vector<float> t(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i)
        t[static_cast<std::size_t>(i)] = i < halfway ? start + step * static_cast<float>(i)
                                                     : end - step * static_cast<float>(n - i - 1);
    return t;
}

float dream_transfer_fraction(const std::vector<float>& timesteps, int step) {
    const int steps = static_cast<int>(timesteps.size()) - 1;
    if (step < 0 || step >= steps)
        throw Error("dream schedule: step " + std::to_string(step) + " outside [0, " + std::to_string(steps) + ")");
    if (step == steps - 1) return 1.0f;
    const float t = timesteps[static_cast<std::size_t>(step)];
    const float s = timesteps[static_cast<std::size_t>(step) + 1];
    return 1.0f - s / t;
}

int dream_transfer_count(const std::vector<float>& timesteps, int step, int masks) {
    const int steps = static_cast<int>(timesteps.size()) - 1;
    const float fraction = dream_transfer_fraction(timesteps, step);
    if (step == steps - 1) return masks;
    // volatile-free float32 product, truncated toward zero like Python's int() on a tensor.
    const float product = static_cast<float>(masks) * fraction;
    int k = static_cast<int>(product);
    if (k < 0) k = 0;
    if (k > masks) k = masks;
    return k;
}

}  // namespace dlm
