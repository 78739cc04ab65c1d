#pragma once
// Dream's reference sampler (generation_utils.py `_sample`):
// timesteps linspace(1, eps, steps + 1); `origin` reveals each mask with probability 1 - s/t;
// maskgit_plus / topk_margin / entropy reveal int(masks * (1 - s/t)) positions ranked by their
// confidence (or drawn without replacement from softmax(conf / alg_temp)); the last step
// reveals everything left. The logit shift is handled by the session, not here.
#include <vector>

#include "decode/commit_order.h"
#include "decode/decode_settings.h"
#include "decode/unmask_policy.h"

namespace dlm {

struct DreamUnmaskOptions {
    int prompt_length = 0;
    int gen_length = 0;
    int steps = 0;
    double eps = 1e-3;
    DreamAlg alg = DreamAlg::Entropy;
    double alg_temp = 0.0;
    ConfidenceSource source = ConfidenceSource::Processed;
    EosDeferral eos;
};

class DreamUnmask final : public UnmaskPolicy {
public:
    explicit DreamUnmask(DreamUnmaskOptions o);  // throws dlm::Error on inconsistent options
    std::string_view name() const override { return "dream"; }
    int planned_steps() const override { return o_.steps; }
    std::vector<Commit> choose(const StepContext& ctx) override;
    const std::vector<float>& timesteps() const { return timesteps_; }

private:
    ConfidenceMeasure measure() const;
    DreamUnmaskOptions o_;
    std::vector<float> timesteps_;
    std::vector<RankedCandidate> scratch_;
};

}  // namespace dlm
