#include "decode/compute_policy.h"

#include <numeric>

namespace dlm {

void FullCompute::plan_rows(int, const DecodeCanvas& canvas, std::vector<int32_t>& rows) {
    rows.resize(static_cast<std::size_t>(canvas.size()));
    std::iota(rows.begin(), rows.end(), 0);
}

}  // namespace dlm
