#pragma once
// A named decode strategy = one unmask policy x one compute policy x one revision policy
// (design.md §7). make_strategy is the single place that maps a name and its parameters
// ("<namespace>.<name>" keys of DecodeSettings::params) to policies.
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
    std::vector<SettingsIssue> issues;  // warnings about its parameters (no effect, defaulted, ...)
    std::set<std::string> namespaces;   // the parameter namespaces its builder read
};

// What some strategies need beyond the settings: Guided Diffusion bridges the diffusion model's
// tokenizer to its guider's, and finds its default guider beside the model folder.
struct StrategyEnv {
    const Tokenizer* tokenizer = nullptr;
    GuiderCache* guiders = nullptr;  // Guided Diffusion's guider checkpoints (and the default one)
};

// Throws dlm::Error for an unknown strategy name (listing the known ones) or an unknown or
// malformed parameter of the chosen strategy. Parameters of other strategies are ignored
// (validate() warns about them).
Strategy make_strategy(const DecodeSettings& s, const ModelConfig& config, int prompt_len,
                       const StrategyEnv& env = {});
std::vector<std::string> known_strategies();

// Everything a settings panel says before Run (the app's, and the server's for a remote one):
// validate(), then, unless it found an error, the chosen strategy's own checks as make_strategy
// makes them (its refusal as an error, its warnings). Guided Diffusion is left to the run: its
// builder loads the guider model from disk, too much for every keystroke.
std::vector<SettingsIssue> validate_with_strategy(const DecodeSettings& s, const ModelConfig& config, int prompt_len);

// The reference unmask policy of the settings' sampler family (LladaUnmask or DreamUnmask),
// with the EOS deferral and confidence source resolved.
std::unique_ptr<UnmaskPolicy> make_reference_unmask(const DecodeSettings& s, const ModelConfig& config, int prompt_len);

}  // namespace dlm
