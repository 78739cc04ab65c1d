#include "decode/saber_revision.h"

#include "decode/commit_order.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>

#include "util/error.h"

namespace dlm {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
}

SaberUnmask::SaberUnmask(std::shared_ptr<SaberState> state) : st_(std::move(state)) {
    if (st_->o.n < 1) throw Error("saber: n (minimum tokens per step) must be at least 1");
    if (st_->o.max_steps_per_block < 1) throw Error("saber: max_steps_per_block must be at least 1");
}

std::vector<Commit> SaberUnmask::choose(const StepContext& ctx) {
    SaberState& s = *st_;
    const DecodeCanvas& cv = ctx.canvas;
    const int n = cv.size(), begin = cv.prompt_length();
    if (s.conf_prev.size() != static_cast<std::size_t>(n)) {
        s.conf_prev.assign(static_cast<std::size_t>(n), std::nan(""));
        s.final_conf.assign(static_cast<std::size_t>(n), std::nan(""));
    }
    s.delta.assign(static_cast<std::size_t>(n), kInf);
    // The block cursor moves on when nothing up to its end is masked.
    auto masked_upto = [&](int end) {
        for (int p = begin; p < end; ++p)
            if (cv.is_masked(p)) return true;
        return false;
    };
    while (s.block + 1 < s.o.blocks.num_blocks() && !masked_upto(s.block_end())) ++s.block;
    const int end = std::min(s.block_end(), n);

    // Confidence of every slot up to the block end, and its change since the last step.
    std::vector<double> conf(static_cast<std::size_t>(n), -kInf);
    for (int p = begin; p < end; ++p) {
        const RowStats* r = ctx.at(p);
        if (r) conf[static_cast<std::size_t>(p)] = r->sampled_p_raw;
    }
    for (int p = begin; p < n; ++p) {
        const auto i = static_cast<std::size_t>(p);
        const double d = conf[i] - s.conf_prev[i];
        s.delta[i] = std::isfinite(d) ? d : kInf;
        s.conf_prev[i] = conf[i];
    }

    // tau = the mean committed confidence of the decoded slots up to the block end.
    double sum = 0;
    int count = 0;
    for (int p = begin; p < end; ++p) {
        const double f = s.final_conf[static_cast<std::size_t>(p)];
        if (!cv.is_masked(p) && !std::isnan(f)) {
            sum += f;
            ++count;
        }
    }
    const double tau = count > 0 ? sum / count : 1.0;

    std::vector<RankedCandidate> cand;
    for (int p = begin; p < end; ++p) {
        if (!cv.is_masked(p)) continue;
        const RowStats* r = ctx.at(p);
        if (!r) continue;
        cand.push_back({p, r->sampled, conf[static_cast<std::size_t>(p)], false});
    }
    int passing = 0;
    for (const RankedCandidate& c : cand) passing += c.key > tau ? 1 : 0;
    const int k = std::max(passing, std::min<int>(s.o.n, static_cast<int>(cand.size())));
    std::vector<Commit> commits = take_best(cand, k);
    for (const Commit& c : commits) s.final_conf[static_cast<std::size_t>(c.pos)] = conf[static_cast<std::size_t>(c.pos)];
    s.fix = static_cast<int>(commits.size());
    return commits;
}

int SaberRevision::backtrack_count(int n, int fix) {
    const int r = std::max(n / 2, (fix + 7) / 8);
    return std::max(0, std::min(r, fix - 1));
}

std::vector<Revision> SaberRevision::revise(const StepContext& ctx) {
    const SaberState& s = *st_;
    const DecodeCanvas& cv = ctx.canvas;
    if (cv.masks_left() == 0) return {};
    const int begin = cv.prompt_length(), end = std::min(s.block_end(), cv.size());
    bool block_has_mask = false;
    for (int p = begin; p < end && !block_has_mask; ++p) block_has_mask = cv.is_masked(p);
    if (!block_has_mask) return {};  // the reference moves to the next block without backtracking
    const int r = backtrack_count(s.o.n, s.fix);
    if (r == 0) return {};
    std::vector<int32_t> decoded;
    for (int p = begin; p < end; ++p)
        if (!cv.is_masked(p)) decoded.push_back(p);
    const std::size_t k = std::min<std::size_t>(static_cast<std::size_t>(r), decoded.size());
    std::partial_sort(decoded.begin(), decoded.begin() + static_cast<std::ptrdiff_t>(k), decoded.end(),
                      [&](int32_t a, int32_t b) {
                          const double da = s.delta[static_cast<std::size_t>(a)], db = s.delta[static_cast<std::size_t>(b)];
                          return da != db ? da < db : a < b;
                      });
    std::vector<Revision> out;
    for (std::size_t i = 0; i < k; ++i) out.push_back({Revision::Kind::Remask, decoded[i], -1});
    return out;
}

}  // namespace dlm
