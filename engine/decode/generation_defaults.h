#pragma once
// A checkpoint's generation_config.json as decode defaults. The sampling keys it publishes
// (temperature, top_p, top_k, do_sample, and Dream's alg, alg_temp, eps) become settings that
// layer on top of the settings schema's defaults; what the user sets layers on top of them.
// The task's size it publishes (max_new_tokens -> gen_length, steps) is a default too, under the
// user's gen length and steps: see layer_generation_defaults.
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace dlm {

class DecodeSettings;

struct GenerationDefaults {
    std::map<std::string, std::string> settings;  // sampling settings keys, as DecodeSettings::set reads them
    std::map<std::string, std::string> task;      // "gen_length" (from max_new_tokens) and "steps"
    std::vector<std::string> notes;               // what was left out and why (one line each)
};

// An absent file gives no defaults. A file that cannot be used (not JSON, not an object) gives
// none either, with a note naming it: like every side file of a checkpoint, it never stops a
// model from loading (the CLI prints the note, the app shows it).
GenerationDefaults read_generation_defaults(const std::filesystem::path& checkpoint_dir);
// Throws dlm::Error naming `source` for text that is not a JSON object.
GenerationDefaults parse_generation_defaults(const std::string& json_text, const std::string& source);

// Layers the defaults under what the user set (`user_given`: the keys the user set in `s`):
// the sampling settings the user did not set; the model's gen length when the user set neither
// gen length nor steps, and its steps when, in addition, they fit the gen length (steps <= gen
// length; a model's steps for a longer canvas than the one in use are noted and steps follow the
// gen length). Returns the notes of what was not applied. Follow rules are the caller's.
std::vector<std::string> layer_generation_defaults(DecodeSettings& s, const GenerationDefaults& d,
                                                   const std::set<std::string>& user_given);

// The settings a model starts from, as a settings map (default_settings() form): `base` with the
// model's defaults layered as for a user who set nothing. Only the keys the model changes differ
// from `base`. What was not applied is appended to `notes` when given.
std::map<std::string, std::string> model_default_settings(std::map<std::string, std::string> base,
                                                          const GenerationDefaults& d,
                                                          std::vector<std::string>* notes = nullptr);

// The settings in which a model starts from other values than the schema's defaults
// (model_default_settings over default_settings(), the keys it changes; empty for a model without
// a generation_config.json): what a trace header keeps, so that a run's preset name is matched
// against the settings its model starts from ("SureLock" on Dream, whose temperature is 0.2).
std::map<std::string, std::string> model_setting_changes(const GenerationDefaults& d);

}  // namespace dlm
