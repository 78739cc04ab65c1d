#pragma once
// A checkpoint's generation_config.json as decode defaults. The sampling keys it publishes
// (temperature, top_p, top_k, do_sample, and Dream's alg, alg_temp, eps) become settings that
// layer on top of the settings schema's defaults; what the user sets layers on top of them. The
// task's size (steps, max_new_tokens) is the user's and is reported, not applied.
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace dlm {

struct GenerationDefaults {
    std::map<std::string, std::string> settings;  // settings keys, as DecodeSettings::set reads them
    std::vector<std::string> notes;               // what was left out and why (one line each)
};

// An absent file gives no defaults; a file that is not a JSON object is refused with its name.
GenerationDefaults read_generation_defaults(const std::filesystem::path& checkpoint_dir);
GenerationDefaults parse_generation_defaults(const std::string& json_text, const std::string& source);

}  // namespace dlm
