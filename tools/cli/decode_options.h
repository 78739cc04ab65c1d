#pragma once
// What `run` and `eval` share: the decode options (strategy, --set, lengths, temperature, seed),
// turning them into DecodeSettings, validating them against a prompt, and loading a model with
// its backend.
#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "args.h"
#include "compute/backend.h"
#include "decode/decode_settings.h"
#include "model/checkpoint.h"

namespace dlm::cli {

// --strategy, --set, --gen-len, --steps, --block-len, --temperature, --seed, --threads.
std::vector<OptionSpec> decode_option_specs();
// The help paragraph listing the --set keys.
std::string decode_options_description();

// CLI defaults (gen-len 64, steps = gen-len, block-len = gen-len, T = 0, strategy "baseline"),
// then --set in order, then the dedicated options. steps / block length follow the generation
// length unless given. Throws UsageError naming the option for a bad value.
DecodeSettings settings_from_args(const ParsedArgs& a);

// validate() against the model and the templated prompt: errors -> UsageError (all of them in
// one line); warnings -> "warning: ..." on stderr, each distinct message once per `already_warned`.
void check_settings(const DecodeSettings& s, const ModelConfig& config, int prompt_len,
                    std::set<std::string>* already_warned = nullptr);

struct LoadedModel {
    // Heap-held so that the backend's references into the weights survive moving LoadedModel.
    std::unique_ptr<Checkpoint> checkpoint;
    std::unique_ptr<Backend> backend;
    std::string name;  // folder name, for the trace header and reports
};

// Checks the folder exists (a clear message instead of a loader error about config.json), loads
// the checkpoint and makes the CPU backend (`threads` 0 = all cores).
LoadedModel load_model(const std::filesystem::path& dir, int threads);

}  // namespace dlm::cli
