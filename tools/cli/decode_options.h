#pragma once
#include <map>
// What `run` and `eval` share: the decode options (strategy, --set, lengths, temperature, seed,
// backend), turning them into DecodeSettings, validating them against a prompt, and loading a
// model with the backend asked for.
#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "args.h"
#include "compute/backend.h"
#include "backends/backend_factory.h"
#include "backends/loaded_model.h"
#include "decode/settings_schema.h"
#include "decode/decode_session.h"
#include "decode/decode_settings.h"
#include "decode/generation_defaults.h"
#include "model/checkpoint.h"

namespace dlm::cli {

// --preset, --strategy, --set, --gen-len, --steps, --block-len, --temperature, --seed, --threads,
// --backend.
std::vector<OptionSpec> decode_option_specs();
// The --backend option alone (for commands without the decode options, e.g. bench).
OptionSpec backend_option_spec();
// The help paragraph on --backend (what auto chooses, the note when the CPU runs instead).
std::string backend_description();
// The help paragraph listing the --set keys.
std::string decode_options_description();

// The schema's defaults, then the model's generation_config.json defaults (layer_generation_defaults),
// then what the command line sets: --preset's settings, --set in order, then the dedicated options
// (--strategy, --gen-len, ...). steps follows the generation length unless given. The model's
// notes (what it publishes but is not applied) are printed as warnings. Throws UsageError naming
// the option for a bad value or an unknown preset.
DecodeSettings settings_from_args(const ParsedArgs& a, const GenerationDefaults& model_defaults = {});
// Whether the command line gives decode setting `key` itself (its dedicated option or --set),
// not through --preset: "gen_length" is given by --gen-len 64 or --set gen_length=64.
bool setting_given(const ParsedArgs& a, std::string_view key);
// The preset --preset names; nullptr without one (settings_from_args refuses an unknown name).
const StrategyPreset* preset_from_args(const ParsedArgs& a);

// validate_with_strategy() against the model and the templated prompt (the settings panel's
// check: the strategy's own refusals and warnings included): errors -> UsageError (all of them in
// one line); warnings -> "warning: ..." on stderr, each distinct message once per `already_warned`.
void check_settings(const DecodeSettings& s, const ModelConfig& config, int prompt_len,
                    std::set<std::string>* already_warned = nullptr);

// The session's warnings that check_settings could not know (the prompt holds the mask token;
// Guided Diffusion's, whose guider loads with the session), as "warning: ..." on stderr, each
// distinct message once per `already_warned`.
void print_session_warnings(const DecodeSession& session, std::set<std::string>& already_warned);

// --backend auto|cpu|cuda (default auto); UsageError naming the accepted values otherwise.
BackendKind backend_from_args(const ParsedArgs& a);

// "note: <backend_note>" on stderr, once per model, when there is a note. Commands call it when
// the work starts (after the settings are validated), so a refused command still fails with a
// single error line.
void print_backend_note(LoadedModel& model);

}  // namespace dlm::cli
