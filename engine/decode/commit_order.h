#pragma once
// Ranking masked positions for commit: the confidence measures of the reference samplers and
// the EOS deferral of confidence_eos_eot_inf, shared by every unmask policy.
#include <cstdint>
#include <vector>

#include "compute/row_stats.h"
#include "decode/decode_settings.h"
#include "decode/unmask_policy.h"

namespace dlm {

// What "confidence" means for an unmask rule.
enum class ConfidenceMeasure {
    SampledProb,  // p of the sampled token (LLaDA low_confidence, Dream maskgit_plus)
    Margin,       // top-1 p - top-2 p (Dream topk_margin)
    NegEntropy,   // -entropy (Dream entropy)
};

// Reads the measure from the raw (T = 1) or processed (temperature/top-k/top-p) distribution.
// NaN statistics rank last (-inf).
double confidence_value(const RowStats& s, ConfidenceMeasure measure, ConfidenceSource source);

// confidence_eos_eot_inf as intended (LLaDA PR #139): EOS and EoT may be sampled, but positions
// that sampled them are committed only after every other candidate.
struct EosDeferral {
    bool active = false;
    int32_t eos = -1;
    int32_t eot = -1;
    bool defers(int32_t token) const { return active && token >= 0 && (token == eos || token == eot); }
};
// The deferral the settings ask for (eos = confidence_eos_eot_inf), with the model's EOS and EoT.
EosDeferral eos_deferral(const DecodeSettings& s, const ModelConfig& config);

struct RankedCandidate {
    int32_t pos = -1;
    int32_t token = -1;
    double key = 0.0;       // higher commits first
    bool deferred = false;  // deferred candidates rank after all others
};

// The masked positions of [begin, end) that have statistics, each keyed by `key(stats, pos)`
// and deferred as `eos` says. Appends to `out`. Every unmask rule collects its candidates here.
template <typename Key>
void collect_candidates(const StepContext& ctx, int begin, int end, const EosDeferral& eos, Key&& key,
                        std::vector<RankedCandidate>& out) {
    for (int p = begin; p < end; ++p) {
        if (!ctx.canvas.is_masked(p)) continue;
        const RowStats* s = ctx.at(p);
        if (!s) continue;
        out.push_back({p, s->sampled, key(*s, p), eos.defers(s->sampled)});
    }
}

// The masked positions of [begin, end) that have statistics, ranked the LLaDA way: by the
// confidence of the sampled token (from `source`), or by a uniform draw keyed by (seed, step,
// position) for random remasking. Appends to `out`.
void collect_block_candidates(const StepContext& ctx, int begin, int end, Remasking remasking,
                              ConfidenceSource source, const EosDeferral& eos,
                              std::vector<RankedCandidate>& out);

// The k best candidates (all if k >= size): not deferred first, then higher key, then lower
// position (torch.topk's tie order on the reference's left-to-right layout). Reorders `c`.
std::vector<Commit> take_best(std::vector<RankedCandidate>& c, int k);

}  // namespace dlm
