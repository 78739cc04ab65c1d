#include "decode/draft_unmask.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "util/error.h"

namespace dlm {

DraftUnmask::DraftUnmask(DraftUnmaskOptions o) : o_(std::move(o)) {
    if (!(o_.tau >= 0 && o_.tau <= 1)) throw Error(o_.name + ": the draft threshold must lie in [0, 1]");
    if (o_.cap_rule == DraftUnmaskOptions::Cap::Fixed && o_.cap < 1)
        throw Error(o_.name + ": the drafting budget must be at least 1, got " + std::to_string(o_.cap));
    if (o_.max_steps < 1) throw Error(o_.name + ": max_steps must be at least 1");
}

int DraftUnmask::wino_cap(int masks) {
    return std::min(std::max(static_cast<int>(0.7 * masks), 5), 20);
}

std::vector<Commit> DraftUnmask::choose(const StepContext& ctx) {
    const DecodeCanvas& cv = ctx.canvas;
    block_ = o_.blocks.current_block(cv);
    const int begin = o_.blocks.begin(block_), end = std::min(o_.blocks.end(block_), cv.size());
    scratch_.clear();
    int masks = 0;
    for (int p = begin; p < end; ++p) masks += cv.is_masked(p) ? 1 : 0;
    collect_block_candidates(ctx, begin, end, Remasking::LowConfidence, ConfidenceSource::Raw, o_.eos, scratch_);
    if (scratch_.empty()) return {};
    const int cap = o_.cap_rule == DraftUnmaskOptions::Cap::Wino ? wino_cap(masks) : o_.cap;
    // Ranked: not deferred first, then confidence, then position.
    std::vector<Commit> ranked = take_best(scratch_, static_cast<int>(scratch_.size()));
    int passing = 0;
    for (const RankedCandidate& c : scratch_)
        if (!c.deferred && c.key > o_.tau) ++passing;
    const int k = std::max(1, std::min(passing, cap));
    ranked.resize(static_cast<std::size_t>(std::min<int>(k, static_cast<int>(ranked.size()))));
    return ranked;
}

}  // namespace dlm
