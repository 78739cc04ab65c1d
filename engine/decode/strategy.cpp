#include "decode/strategy.h"

#include "decode/dream_unmask.h"
#include "decode/llada_unmask.h"
#include "decode/revision_strategies.h"
#include "decode/speed_strategies.h"
#include "decode/strategy_params.h"
#include "util/error.h"

namespace dlm {

std::vector<std::string> known_strategies() {
    std::vector<std::string> names{"baseline"};
    // --- compute-saving presets (speed_strategies.cpp) ---
    for (auto& n : speed_strategy_names()) names.push_back(std::move(n));
    // --- revocable and guided presets (revision_strategies.cpp) ---
    for (auto& n : revision_strategy_names()) names.push_back(std::move(n));
    return names;
}

std::unique_ptr<UnmaskPolicy> make_reference_unmask(const DecodeSettings& s, const ModelConfig& config,
                                                    int prompt_len) {
    const EosDeferral eos = eos_deferral(s, config);
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

std::vector<SettingsIssue> validate_with_strategy(const DecodeSettings& s, const ModelConfig& config, int prompt_len) {
    std::vector<SettingsIssue> issues = validate(s, config, prompt_len);
    if (has_errors(issues) || s.strategy == "guided") return issues;
    try {
        const Strategy built = make_strategy(s, config, prompt_len);
        issues.insert(issues.end(), built.issues.begin(), built.issues.end());
    } catch (const std::exception& e) {
        issues.push_back({SettingsIssue::Severity::Error, {}, e.what()});
    }
    return issues;
}

Strategy make_strategy(const DecodeSettings& s, const ModelConfig& config, int prompt_len, const StrategyEnv& env) {
    Strategy out;
    out.name = s.strategy;
    // Each builder claims the parameter namespaces it reads; finish() refuses unknown keys of a
    // claimed namespace and warns about the others.
    StrategyParams params(s.params, s.strategy);
    const auto finish = [&]() -> Strategy {
        const auto issues = params.finish();
        out.namespaces = params.claimed();
        out.issues.insert(out.issues.end(), issues.begin(), issues.end());
        return std::move(out);
    };
    if (s.strategy == "baseline") {
        params.claim("baseline");
        out.unmask = make_reference_unmask(s, config, prompt_len);
        out.compute = std::make_unique<FullCompute>();
        out.revision = std::make_unique<NoRevision>();
        return finish();
    }
    // --- compute-saving presets (speed_strategies.cpp) ---
    if (make_speed_strategy(s, config, prompt_len, params, out)) return finish();
    // --- revocable and guided presets (revision_strategies.cpp) ---
    if (make_revision_strategy(s, config, prompt_len, env, params, out)) return finish();
    std::string known;
    for (const auto& n : known_strategies()) known += (known.empty() ? "" : ", ") + n;
    throw Error("unknown strategy '" + s.strategy + "' (known: " + known + ")");
}

}  // namespace dlm
