#include "decode/commit_order.h"

#include "util/counter_rng.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace dlm {

EosDeferral eos_deferral(const DecodeSettings& s, const ModelConfig& config) {
    EosDeferral e;
    e.active = s.eos == EosPolicy::ConfidenceEosEotInf;
    e.eos = config.eos_token_id;
    e.eot = config.eot_token_id;
    return e;
}

double confidence_value(const RowStats& s, ConfidenceMeasure measure, ConfidenceSource source) {
    const bool raw = source != ConfidenceSource::Processed;
    double v = 0.0;
    switch (measure) {
        case ConfidenceMeasure::SampledProb: v = raw ? s.sampled_p_raw : s.sampled_p_proc; break;
        case ConfidenceMeasure::Margin:
            v = raw ? double(s.p_max) - double(s.p_second) : double(s.p_max_proc) - double(s.p_second_proc);
            break;
        case ConfidenceMeasure::NegEntropy: v = -(raw ? double(s.entropy) : double(s.entropy_proc)); break;
    }
    return std::isnan(v) ? -std::numeric_limits<double>::infinity() : v;
}

std::vector<Commit> take_best(std::vector<RankedCandidate>& c, int k) {
    const auto better = [](const RankedCandidate& a, const RankedCandidate& b) {
        if (a.deferred != b.deferred) return !a.deferred;
        if (a.key != b.key) return a.key > b.key;
        return a.pos < b.pos;
    };
    const std::size_t n = std::min<std::size_t>(c.size(), static_cast<std::size_t>(std::max(k, 0)));
    std::partial_sort(c.begin(), c.begin() + static_cast<std::ptrdiff_t>(n), c.end(), better);
    std::vector<Commit> out;
    out.reserve(n);
    for (std::size_t i = 0; i < n; ++i) out.push_back({c[i].pos, c[i].token});
    return out;
}

void collect_block_candidates(const StepContext& ctx, int begin, int end, Remasking remasking,
                              ConfidenceSource source, const EosDeferral& eos,
                              std::vector<RankedCandidate>& out) {
    const CounterRng random(ctx.seed, rng_stream::kRemasking);
    collect_candidates(ctx, begin, end, eos, [&](const RowStats& s, int p) {
        return remasking == Remasking::Random ? random.uniform(static_cast<uint64_t>(ctx.step), static_cast<uint64_t>(p))
                                              : confidence_value(s, ConfidenceMeasure::SampledProb, source);
    }, out);
}

}  // namespace dlm
