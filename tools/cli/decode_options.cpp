#include "decode_options.h"

#include <iostream>

#include "decode/settings_schema.h"
#include "decode/strategy.h"
#include "output.h"

namespace dlm::cli {

namespace {

// A dedicated option and the DecodeSettings key it sets.
struct DedicatedOption {
    const char* option;
    const char* key;
};
constexpr DedicatedOption kDedicated[] = {
    {"strategy", "strategy"},       {"gen-len", "gen_length"},     {"steps", "steps"},
    {"block-len", "block_length"}, {"temperature", "temperature"}, {"seed", "seed"},
};

void apply(DecodeSettings& s, const std::string& key, const std::string& value, const std::string& origin) {
    try {
        s.set(key, value);
    } catch (const Error& e) {
        throw UsageError(origin + ": " + e.what());
    }
}

}  // namespace

std::vector<OptionSpec> decode_option_specs() {
    // Help texts and defaults from the engine's settings schema.
    const auto text = [](const char* key) {
        const SettingSpec& s = setting_spec(key);
        std::string t = s.help + " (default " + s.default_value;
        if (!s.follows.empty()) t += "; follows " + s.follows + " when not given";
        return t + ")";
    };
    return {
        {"preset", "NAME", "a strategy preset, as the app's preset box names it (e.g. \"SureLock + unlocking\"; "
                           "all: dlmscope-cli settings --presets); --strategy and --set change it further"},
        {"strategy", "NAME", text("strategy")},
        {"set", "KEY=VALUE", "any decode setting or strategy parameter, e.g. --set top_p=0.9 (all: dlmscope-cli settings)", true},
        {"gen-len", "N", text("gen_length")},
        {"steps", "N", text("steps")},
        {"block-len", "N", text("block_length")},
        {"temperature", "T", text("temperature")},
        {"seed", "S", text("seed")},
        {"threads", "N", "CPU threads (default: 1 for a model under 20 M parameters, else all cores)"},
        backend_option_spec(),
    };
}

std::string backend_description() {
    return "--backend auto uses the CUDA backend when this build has one and a GPU is usable, else the CPU;\n"
           "when CUDA was asked for (or a GPU is present) but the CPU runs instead, a 'note:' line on stderr\n"
           "says why (no CUDA in this build, no device or driver, not enough device memory).";
}

OptionSpec backend_option_spec() {
    return {"backend", "NAME", "compute backend: auto, cpu or cuda (default auto: CUDA when usable, else CPU)"};
}

BackendKind backend_from_args(const ParsedArgs& a) {
    const auto text = a.get("backend");
    if (!text) return BackendKind::Auto;
    try {
        return parse_backend_kind(*text);
    } catch (const Error& e) {
        throw UsageError(std::string("--backend: ") + e.what());
    }
}

std::string decode_options_description() {
    std::string keys;
    for (const auto& k : DecodeSettings::known_keys()) keys += (keys.empty() ? "" : ", ") + k;
    return "--set keys: " + keys + ";\nstrategy parameters are written <namespace>.<name> (e.g. surelock.epsilon);\n"
           "'dlmscope-cli settings' lists every key with its type, default, range, meaning and the\n"
           "strategies that read it.\n" +
           backend_description();
}

bool setting_given(const ParsedArgs& a, std::string_view key) {
    for (const auto& d : kDedicated)
        if (d.key == key && a.has(d.option)) return true;
    for (const auto& kv : a.all("set"))
        if (std::string_view(kv).substr(0, kv.find('=')) == key) return true;
    return false;
}

const StrategyPreset* preset_from_args(const ParsedArgs& a) {
    const auto name = a.get("preset");
    return name ? find_strategy_preset(*name) : nullptr;
}

DecodeSettings settings_from_args(const ParsedArgs& a, const GenerationDefaults& model_defaults) {
    struct UserValue {
        std::string key, value, source;
    };
    std::vector<UserValue> user;
    // A preset first, so that --strategy and --set given with it change it.
    const StrategyPreset* preset = preset_from_args(a);
    if (auto name = a.get("preset"); name && !preset)
        throw UsageError("--preset: no preset '" + *name + "' (presets: " + strategy_preset_names() + ")");
    if (preset)
        for (const auto& [key, value] : preset->settings) user.push_back({key, value, "--preset " + preset->name});
    for (const auto& kv : a.all("set")) {
        auto [key, value] = split_key_value(kv, "--set");
        user.push_back({key, value, "--set " + kv});
    }
    for (const auto& d : kDedicated)
        if (auto v = a.get(d.option)) user.push_back({d.key, *v, std::string("--") + d.option});
    std::set<std::string> given;
    for (const auto& u : user) given.insert(u.key);

    DecodeSettings s;  // the schema's defaults, then the model's under the user's
    for (const std::string& note : model_defaults.notes) print_warning("generation_config.json: " + note);
    for (const std::string& note : layer_generation_defaults(s, model_defaults, given))
        print_warning("generation_config.json: " + note);
    for (const auto& u : user) apply(s, u.key, u.value, u.source);
    apply_follow_rules(s, given);
    // A preset's block length (FreeCache's 32) tiles the canvas given beside it, as in the app;
    // one the user gives is theirs to fit.
    if (preset && !setting_given(a, "block_length"))
        if (const auto block = preset_block_length(*preset, s.gen_length)) s.block_length = *block;
    return s;
}

void check_settings(const DecodeSettings& s, const ModelConfig& config, int prompt_len,
                    std::set<std::string>* already_warned) {
    const auto issues = validate_with_strategy(s, config, prompt_len);
    std::string errors;
    for (const auto& issue : issues) {
        if (issue.is_error()) {
            errors += (errors.empty() ? "" : "; ") + issue.message;
        } else if (!already_warned || already_warned->insert(issue.message).second) {
            print_warning(issue.message);
        }
    }
    if (!errors.empty()) throw UsageError("invalid settings: " + errors);
}

void print_session_warnings(const DecodeSession& session, std::set<std::string>& already_warned) {
    for (const auto& w : session.warnings())
        if (already_warned.insert(w.message).second) print_warning(w.message);
}

void print_backend_note(LoadedModel& model) {
    if (model.backend_note.empty()) return;
    print_note(model.backend_note);
    model.backend_note.clear();
}

}  // namespace dlm::cli
