#include "decode/threshold_unmask.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "util/counter_rng.h"
#include "util/error.h"

namespace dlm {

ThresholdUnmask::ThresholdUnmask(ThresholdUnmaskOptions o) : o_(o) {
    if (!(o_.tau >= 0 && o_.tau <= 1)) throw Error("fast-dllm threshold: tau must lie in [0, 1]");
    if (!(o_.factor >= 0) || std::isinf(o_.factor)) throw Error("fast-dllm threshold: factor must be >= 0");
}

int ThresholdUnmask::accept_threshold(const std::vector<double>& sorted, double tau) {
    if (sorted.empty()) return 0;
    int k = 1;  // always the most confident one
    while (k < static_cast<int>(sorted.size()) && sorted[std::size_t(k)] >= tau) ++k;
    return k;
}

int ThresholdUnmask::accept_factor(const std::vector<double>& sorted, double factor) {
    const int n = static_cast<int>(sorted.size());
    if (n == 0) return 0;
    // The reference: threshs[j] = 1 - factor/(j+2) (0-based j), threshs[0] = -1; top_i = first j
    // failing (n - 1 when none fails); top_i == 0 or top_i == n - 1 -> top_i + 1.
    int top = n - 1;
    for (int j = 0; j < n; ++j) {
        const double thresh = j == 0 ? -1.0 : 1.0 - factor / double(j + 2);
        if (sorted[std::size_t(j)] < thresh) {
            top = j;
            break;
        }
    }
    if (top == 0 || top == n - 1) ++top;
    return top;
}

std::vector<Commit> ThresholdUnmask::choose(const StepContext& ctx) {
    const DecodeCanvas& cv = ctx.canvas;
    block_ = o_.blocks.current_block(cv);
    const int begin = o_.blocks.begin(block_), end = std::min(o_.blocks.end(block_), cv.size());
    scratch_.clear();
    collect_block_candidates(ctx, begin, end, o_.remasking, o_.source, o_.eos, scratch_);
    // Rank everything (not deferred first, then confidence, then position), then cut.
    std::vector<Commit> ranked = take_best(scratch_, static_cast<int>(scratch_.size()));
    std::vector<double> keys;
    keys.reserve(scratch_.size());
    for (const RankedCandidate& c : scratch_)
        keys.push_back(c.deferred ? -std::numeric_limits<double>::infinity() : c.key);
    const int k = o_.factor > 0 ? accept_factor(keys, o_.factor) : accept_threshold(keys, o_.tau);
    ranked.resize(static_cast<std::size_t>(std::min<int>(k, static_cast<int>(ranked.size()))));
    return ranked;
}

}  // namespace dlm
