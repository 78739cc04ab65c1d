#include "decode/generation_defaults.h"

#include <cmath>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "decode/decode_settings.h"
#include "util/json_document.h"
#include "util/error.h"
#include "util/input_limits.h"
#include "util/text_file.h"

namespace dlm {

namespace {

using json = nlohmann::json;

std::string number_text(const json& v) {
    return v.is_number_integer() ? std::to_string(v.get<long long>()) : format_real(v.get<double>());
}

}  // namespace

GenerationDefaults parse_generation_defaults(const std::string& text, const std::string& source) {
    const json doc = parse_json_document(text, source);
    if (!doc.is_object()) throw Error(source + ": expected a JSON object");
    GenerationDefaults out;
    // Settings keys named as in transformers' GenerationConfig (and Dream's extension of it).
    for (const char* key : {"temperature", "top_p", "top_k", "alg", "alg_temp", "eps"}) {
        auto it = doc.find(key);
        if (it == doc.end() || it->is_null()) continue;
        std::string value;
        if (it->is_number()) value = number_text(*it);
        else if (it->is_string()) value = it->get<std::string>();
        else {
            out.notes.push_back(std::string(key) + " is neither a number nor a string; left at the default");
            continue;
        }
        DecodeSettings probe;
        try {
            probe.set(key, value);
        } catch (const Error& e) {
            out.notes.push_back(std::string(key) + "=" + value + " is not a valid setting (" + e.what() + "); left at the default");
            continue;
        }
        out.settings[key] = value;
    }
    // do_sample = false is greedy whatever the temperature says (transformers' rule).
    if (auto it = doc.find("do_sample"); it != doc.end() && it->is_boolean() && !it->get<bool>())
        out.settings["temperature"] = "0";
    for (const char* key : {"steps", "max_new_tokens", "max_length"})
        if (auto it = doc.find(key); it != doc.end() && !it->is_null())
            out.notes.push_back(std::string(key) + "=" + it->dump() + " is the task's size: set it with gen_length / steps");
    return out;
}

GenerationDefaults read_generation_defaults(const std::filesystem::path& dir) {
    const auto path = dir / "generation_config.json";
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) return {};
    return parse_generation_defaults(read_text_file(path, limits::kConfigJsonBytes, "generation config"), path.string());
}

}  // namespace dlm
