#include "decode/selection_compute.h"

#include <algorithm>
#include <cmath>

#include "util/error.h"

namespace dlm {

SelectionCompute::SelectionCompute(SelectionOptions o) : o_(o) {
    if (!(o_.k > 0 && o_.k <= 1)) throw Error("selection: k must lie in (0, 1]");
    if (o_.refresh_every < 0) throw Error("selection: refresh_every must be >= 0");
}

void SelectionCompute::plan_rows_within(int step, const DecodeCanvas& canvas, std::span<const uint8_t> eligible,
                                        std::vector<int32_t>& rows) {
    const int n = canvas.size();
    if (static_cast<int>(last_computed_.size()) != n) {
        last_computed_.assign(std::size_t(n), -1);
        token_at_compute_.assign(std::size_t(n), -1);
    }
    chosen_.assign(std::size_t(n), 0);
    optional_.clear();
    const bool refresh = o_.refresh_every > 0 && step > 0 && step % o_.refresh_every == 0;
    int pool = 0, planned = 0;
    for (int r = 0; r < n; ++r) {
        const auto i = std::size_t(r);
        if (!eligible[i]) continue;
        ++pool;
        const bool stale_input = last_computed_[i] < 0 || token_at_compute_[i] != canvas.token(r);
        const int predicted = o_.shifted_logits ? r + 1 : r;
        const bool feeds_mask = predicted < n && canvas.is_generated(predicted) && canvas.is_masked(predicted);
        if (refresh || stale_input || feeds_mask) {
            chosen_[i] = 1;
            ++planned;
        } else {
            optional_.push_back(r);
        }
    }
    const int target = static_cast<int>(std::ceil(o_.k * pool - 1e-9));
    if (planned < target) {
        const std::size_t extra = std::min(optional_.size(), std::size_t(target - planned));
        std::partial_sort(optional_.begin(), optional_.begin() + std::ptrdiff_t(extra), optional_.end(),
                          [&](int32_t a, int32_t b) {
                              const int la = last_computed_[std::size_t(a)], lb = last_computed_[std::size_t(b)];
                              return la != lb ? la < lb : a < b;
                          });
        for (std::size_t j = 0; j < extra; ++j) chosen_[std::size_t(optional_[j])] = 1;
    }
    rows.clear();
    for (int r = 0; r < n; ++r)
        if (chosen_[std::size_t(r)]) {
            rows.push_back(r);
            last_computed_[std::size_t(r)] = step;
            token_at_compute_[std::size_t(r)] = canvas.token(r);
        }
}

}  // namespace dlm
