#include "decode/strategy.h"

#include "decode/dream_unmask.h"
#include "decode/llada_unmask.h"
#include "util/error.h"

namespace dlm {

std::vector<std::string> known_strategies() { return {"baseline"}; }

std::unique_ptr<UnmaskPolicy> make_reference_unmask(const DecodeSettings& s, const ModelConfig& config,
                                                    int prompt_len) {
    EosDeferral eos;
    eos.active = s.eos == EosPolicy::ConfidenceEosEotInf;
    eos.eos = config.eos_token_id;
    eos.eot = config.eot_token_id;
    const ConfidenceSource source = effective_confidence(s, config);
    if (effective_sampler(s, config) == SamplerFamily::Dream) {
        DreamUnmaskOptions o;
        o.prompt_length = prompt_len;
        o.gen_length = s.gen_length;
        o.steps = s.steps;
        o.eps = s.eps;
        o.alg = s.alg;
        o.alg_temp = s.alg_temp;
        o.source = source;
        o.eos = eos;
        return std::make_unique<DreamUnmask>(o);
    }
    LladaUnmaskOptions o;
    o.prompt_length = prompt_len;
    o.gen_length = s.gen_length;
    o.block_length = effective_block_length(s, config);
    o.steps = s.steps;
    o.remasking = s.remasking;
    o.source = source;
    o.eos = eos;
    return std::make_unique<LladaUnmask>(o);
}

Strategy make_strategy(const DecodeSettings& s, const ModelConfig& config, int prompt_len) {
    Strategy out;
    out.name = s.strategy;
    const std::string prefix = s.strategy + ".";
    for (const auto& [key, value] : s.params) {
        if (key.rfind(prefix, 0) == 0) {
            // Each strategy lists its own parameters here as it is added.
            throw Error("strategy '" + s.strategy + "' has no parameter '" + key.substr(prefix.size()) + "'");
        }
        out.issues.push_back({SettingsIssue::Severity::Warning, key,
                              "parameter '" + key + "' belongs to another strategy; '" + s.strategy +
                                  "' ignores it"});
    }
    if (s.strategy == "baseline") {
        out.unmask = make_reference_unmask(s, config, prompt_len);
        out.compute = std::make_unique<FullCompute>();
        out.revision = std::make_unique<NoRevision>();
        return out;
    }
    std::string known;
    for (const auto& n : known_strategies()) known += (known.empty() ? "" : ", ") + n;
    throw Error("unknown strategy '" + s.strategy + "' (known: " + known + ")");
}

}  // namespace dlm
