#pragma once
// A named decode strategy = one unmask policy x one compute policy x one revision policy
// (design.md §7). make_strategy is the single place that maps a name and its parameters
// ("<strategy>.<name>" keys of DecodeSettings::params) to policies.
#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "decode/compute_policy.h"
#include "decode/decode_settings.h"
#include "decode/guider_cache.h"
#include "decode/revision_policy.h"
#include "decode/unmask_policy.h"
#include "model/model_config.h"
#include "text/tokenizer.h"

namespace dlm {

struct Strategy {
    std::string name;
    std::unique_ptr<UnmaskPolicy> unmask;
    std::unique_ptr<ComputePolicy> compute;
    std::unique_ptr<RevisionPolicy> revision;
    std::vector<SettingsIssue> issues;  // warnings about parameters (ignored, defaulted, ...)
    std::set<std::string> namespaces;   // the parameter namespaces its builder read
};

// Throws dlm::Error for an unknown strategy name (listing the known ones) or an unknown or
// malformed parameter of the chosen strategy. Parameters of other strategies are reported as
// warnings in `issues` (they are ignored).
// What some strategies need beyond the settings: Guided Diffusion bridges the diffusion model's
// tokenizer to its guider's, and finds its default guider (../tiny-ar) next to the model folder.
struct StrategyEnv {
    const Tokenizer* tokenizer = nullptr;
    GuiderCache* guiders = nullptr;  // Guided Diffusion's guider checkpoints (and the default one)
};

Strategy make_strategy(const DecodeSettings& s, const ModelConfig& config, int prompt_len,
                       const StrategyEnv& env = {});
std::vector<std::string> known_strategies();

// The reference unmask policy of the settings' sampler family (LladaUnmask or DreamUnmask),
// with the EOS deferral and confidence source resolved.
std::unique_ptr<UnmaskPolicy> make_reference_unmask(const DecodeSettings& s, const ModelConfig& config, int prompt_len);

}  // namespace dlm
