#include "decode_options.h"

#include <iostream>

#include "compute/cpu_backend.h"
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
    return {
        {"strategy", "NAME", "decoding strategy (default baseline)"},
        {"set", "KEY=VALUE", "any decode setting or strategy parameter, e.g. --set top_p=0.9", true},
        {"gen-len", "N", "tokens to generate (default 64)"},
        {"steps", "N", "denoising steps (default = gen-len)"},
        {"block-len", "N", "semi-autoregressive block length (default = gen-len: one block)"},
        {"temperature", "T", "sampling temperature, 0 = greedy (default 0)"},
        {"seed", "S", "random seed (default 0)"},
        {"threads", "N", "CPU threads (default: all cores)"},
    };
}

std::string decode_options_description() {
    std::string keys;
    for (const auto& k : DecodeSettings::known_keys()) keys += (keys.empty() ? "" : ", ") + k;
    return "--set keys: " + keys + ";\nstrategy parameters are written <strategy>.<name> (e.g. surelock.epsilon).";
}

DecodeSettings settings_from_args(const ParsedArgs& a) {
    DecodeSettings s;
    s.gen_length = 64;
    s.temperature = 0.0;
    s.strategy = "baseline";
    std::set<std::string> given;
    for (const auto& kv : a.all("set")) {
        auto [key, value] = split_key_value(kv, "--set");
        apply(s, key, value, "--set " + kv);
        given.insert(key);
    }
    for (const auto& d : kDedicated) {
        if (auto v = a.get(d.option)) {
            apply(s, d.key, *v, std::string("--") + d.option);
            given.insert(d.key);
        }
    }
    if (!given.count("steps")) s.steps = s.gen_length;
    if (!given.count("block_length")) s.block_length = s.gen_length;
    return s;
}

void check_settings(const DecodeSettings& s, const ModelConfig& config, int prompt_len,
                    std::set<std::string>* already_warned) {
    const auto issues = validate(s, config, prompt_len);
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

LoadedModel load_model(const std::filesystem::path& dir, int threads) {
    if (!std::filesystem::exists(dir)) throw Error("model folder '" + dir.string() + "' does not exist");
    if (!std::filesystem::is_directory(dir)) throw Error("model path '" + dir.string() + "' is not a folder");
    LoadedModel m;
    m.checkpoint = std::make_unique<Checkpoint>(load_checkpoint(dir));
    CpuBackendOptions options;
    options.threads = threads;
    m.backend = make_cpu_backend(m.checkpoint->weights, options);
    m.name = std::filesystem::absolute(dir).lexically_normal().filename().string();
    if (m.name.empty()) m.name = std::filesystem::absolute(dir).lexically_normal().parent_path().filename().string();
    return m;
}

}  // namespace dlm::cli
