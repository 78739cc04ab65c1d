#include "decode/generation_defaults.h"

#include <cmath>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "decode/decode_settings.h"
#include "decode/settings_schema.h"
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
    // The task's size: max_new_tokens is the gen length; max_length counts the prompt too, so it
    // says nothing about the canvas.
    for (const auto& [file_key, key] : {std::pair<const char*, const char*>{"max_new_tokens", "gen_length"}, {"steps", "steps"}}) {
        auto it = doc.find(file_key);
        if (it == doc.end() || it->is_null()) continue;
        DecodeSettings probe;
        try {
            if (!it->is_number_integer()) throw Error("not a whole number");
            probe.set(key, std::to_string(it->get<long long>()));
            out.task[key] = std::to_string(it->get<long long>());
        } catch (const Error& e) {
            out.notes.push_back(std::string(file_key) + "=" + it->dump() + " is not a valid " + key + " (" + e.what() +
                                "); left at the default");
        }
    }
    if (auto it = doc.find("max_length"); it != doc.end() && !it->is_null() && !out.task.count("gen_length"))
        out.notes.push_back("max_length=" + it->dump() + " counts the prompt too; the gen length stays the default");
    return out;
}

GenerationDefaults read_generation_defaults(const std::filesystem::path& dir) {
    const auto path = dir / "generation_config.json";
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) return {};
    try {
        return parse_generation_defaults(read_text_file(path, limits::kConfigJsonBytes, "generation config"),
                                         "generation_config.json");
    } catch (const std::exception& e) {
        GenerationDefaults none;
        none.notes.push_back(std::string(e.what()) + "; its decode defaults are not used");
        return none;
    }
}

std::vector<std::string> layer_generation_defaults(DecodeSettings& s, const GenerationDefaults& d,
                                                   const std::set<std::string>& user_given) {
    std::vector<std::string> notes;
    for (const auto& [key, value] : d.settings)
        if (!user_given.count(key)) s.set(key, value);
    if (user_given.count("gen_length") || user_given.count("steps")) return notes;  // the user sized the task
    if (auto it = d.task.find("gen_length"); it != d.task.end()) {
        s.set("gen_length", it->second);
        s.set("steps", it->second);  // steps follow the gen length unless the model gives them
    }
    if (auto it = d.task.find("steps"); it != d.task.end()) {
        if (std::stoll(it->second) <= s.gen_length) s.set("steps", it->second);
        else
            notes.push_back("the model's steps=" + it->second + " are for a longer canvas than gen_length=" +
                            std::to_string(s.gen_length) + "; steps follow the gen length");
    }
    return notes;
}

std::map<std::string, std::string> model_default_settings(std::map<std::string, std::string> base,
                                                          const GenerationDefaults& d,
                                                          std::vector<std::string>* notes) {
    DecodeSettings s;
    for (const auto& [key, value] : base) s.set(key, value);
    const std::vector<std::string> not_applied = layer_generation_defaults(s, d, {});
    if (notes) notes->insert(notes->end(), not_applied.begin(), not_applied.end());
    const auto layered = s.to_map();
    std::set<std::string> changed;
    for (const auto& [key, value] : d.settings) changed.insert(key);
    if (!d.task.empty()) changed.insert({"gen_length", "steps"});
    for (const std::string& key : changed)
        if (auto it = layered.find(key); it != layered.end()) base[key] = it->second;
    return base;
}

std::map<std::string, std::string> model_setting_changes(const GenerationDefaults& d) {
    const auto schema = default_settings();
    std::map<std::string, std::string> changes;
    for (const auto& [key, value] : model_default_settings(schema, d))
        if (const auto it = schema.find(key); it == schema.end() || it->second != value) changes[key] = value;
    return changes;
}

}  // namespace dlm
