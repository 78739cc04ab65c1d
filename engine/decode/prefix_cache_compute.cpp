#include "decode/prefix_cache_compute.h"

#include <algorithm>
#include <numeric>

namespace dlm {

void PrefixCacheCompute::plan_rows(int, const DecodeCanvas& canvas, std::vector<int32_t>& rows) {
    const int n = canvas.size();
    const int block = blocks_.current_block(canvas);
    if (block != block_) {
        block_ = block;
        steps_in_block_ = 0;
    }
    refreshed_ = steps_in_block_ == 0 || (refresh_every_ > 0 && steps_in_block_ % refresh_every_ == 0);
    ++steps_in_block_;
    int begin = 0, end = n;
    if (!refreshed_) {
        begin = std::max(0, blocks_.begin(block) - (shifted_ ? 1 : 0));
        if (mode_ == KvCacheMode::Dual) end = std::min(n, blocks_.end(block));
    }
    rows.resize(static_cast<std::size_t>(end - begin));
    std::iota(rows.begin(), rows.end(), begin);
}

void PrefixCacheCompute::add_counters(std::map<std::string, double>& counters) const {
    if (refreshed_) counters["cache_refresh"] = 1;
}

}  // namespace dlm
