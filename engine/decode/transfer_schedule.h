#pragma once
// How many masked positions each step reveals under the reference schedules (LLaDA's
// and Dream's). Pure functions, tested against the reference's arithmetic.
#include <vector>

namespace dlm {

// LLaDA's get_num_transfer_tokens: `masks` positions over `steps` steps, base = masks / steps
// each, the first masks % steps steps one more. When steps > masks the trailing steps reveal 0.
std::vector<int> llada_transfer_counts(int masks, int steps);

// Dream's timesteps = torch.linspace(1, eps, steps + 1) in float32, with torch's two-sided
// formula (start + step*i in the first half, end - step*(n-1-i) in the second), so that the
// floor below matches the reference bit for bit.
std::vector<float> dream_timesteps(int steps, double eps);

// Dream's per-step transfer fraction 1 - s/t (float32), 1 on the last step.
float dream_transfer_fraction(const std::vector<float>& timesteps, int step);

// Number of masks Dream's topk algorithms reveal at `step` with `masks` masked positions left:
// int(masks * (1 - s/t)) in float32, all of them on the last step.
int dream_transfer_count(const std::vector<float>& timesteps, int step, int masks);

}  // namespace dlm
