#include "decode/settings_schema.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include "decode/decode_settings.h"
#include "decode/strategy.h"
#include "trace/step_trace.h"

namespace dlm {

namespace {

constexpr double kLength = 1 << 20;  // canvas and block lengths
constexpr double kCount = 1 << 20;   // step counts, budgets
constexpr double kSeedMax = 18446744073709551615.0;

// Which strategies read each parameter namespace (make_strategy's builders claim the same; a
// builder claiming a namespace not listed here is a logic error, and a test builds every
// strategy to check both directions).
const std::map<std::string, std::vector<std::string>, std::less<>>& namespace_table() {
    static const std::map<std::string, std::vector<std::string>, std::less<>> t = {
        {"baseline", {"baseline"}},  // no parameters: any baseline.* key is a typo
        {"surelock", {"surelock", "surelock+selection", "surelock+freecache"}},
        {"selection", {"selection", "surelock+selection"}},
        {"freecache", {"freecache", "surelock+freecache"}},
        {"threshold", {"threshold", "fast-dllm", "fast-dllm-prefix"}},
        {"cache", {"fast-dllm", "fast-dllm-prefix"}},
        {"cover", {"cover"}},
        {"saber", {"saber"}},
        {"wino", {"wino"}},
        {"guided", {"guided"}},
    };
    return t;
}

struct Builder {
    std::vector<SettingSpec> out;
    Builder() { out.reserve(128); }  // the references add() returns stay valid
    SettingSpec& add(std::string key, SettingType type, std::string def, std::string label, std::string help) {
        SettingSpec s;
        s.key = std::move(key);
        s.type = type;
        s.default_value = std::move(def);
        s.label = std::move(label);
        s.help = std::move(help);
        if (s.is_parameter()) s.strategies = strategies_reading(s.name_space());
        if (type == SettingType::Flag) s.choices = {"off", "on"};
        out.push_back(std::move(s));
        return out.back();
    }
    SettingSpec& integer(std::string key, std::string def, double lo, double hi, std::string label, std::string help) {
        auto& s = add(std::move(key), SettingType::Integer, std::move(def), std::move(label), std::move(help));
        s.min = lo;
        s.max = hi;
        return s;
    }
    SettingSpec& real(std::string key, std::string def, double lo, double hi, std::string label, std::string help) {
        auto& s = add(std::move(key), SettingType::Real, std::move(def), std::move(label), std::move(help));
        s.min = lo;
        s.max = hi;
        return s;
    }
    SettingSpec& choice(std::string key, std::string def, std::vector<std::string> choices, std::string label,
                        std::string help) {
        auto& s = add(std::move(key), SettingType::Choice, std::move(def), std::move(label), std::move(help));
        s.choices = std::move(choices);
        return s;
    }
};

std::vector<SettingSpec> build_schema() {
    Builder b;
    // --- decode settings -----------------------------------------------------------------
    b.choice("strategy", "baseline", known_strategies(), "strategy",
             "Decoding strategy: one unmask, compute and revision policy (docs/strategies.md)");
    b.choice("sampler", "auto", {"auto", "llada", "dream"}, "sampler",
             "Reference sampler family; auto = the model's own");
    auto& gen = b.integer("gen_length", "128", 1, kLength, "gen length", "Positions generated after the prompt");
    gen.unit = "tokens";
    gen.task = true;
    auto& steps = b.integer("steps", "128", 1, kLength, "steps", "Denoising steps of the reference samplers");
    steps.unit = "steps";
    steps.task = true;
    steps.follows = "gen_length";
    auto& block = b.integer("block_length", "0", 0, kLength, "block length",
                            "Semi-autoregressive block of the LLaDA sampler; 0 = one block over the generation");
    block.unit = "tokens";
    block.task = true;
    b.real("temperature", "0", 0, kUnbounded, "temperature", "Sampling temperature; 0 = greedy (argmax)");
    auto& top_p = b.real("top_p", "1", 0, 1, "top-p", "Nucleus sampling: keep the smallest set of mass top_p; 1 = off");
    top_p.exclusive_min = true;
    b.integer("top_k", "0", 0, 2147483647, "top-k", "Keep the k most probable tokens; 0 = off");
    b.real("cfg_scale", "0", 0, 1000, "CFG scale",
           "Classifier-free guidance: a second, prompt-masked item; 0 = off, usual range 0-3");
    b.choice("remasking", "low_confidence", {"low_confidence", "random"}, "remasking",
             "LLaDA sampler: commit the most confident predictions, or uniformly random positions");
    b.choice("alg", "entropy", {"origin", "maskgit_plus", "topk_margin", "entropy"}, "Dream alg",
             "Dream sampler: which positions are revealed first");
    b.real("alg_temp", "0", 0, kUnbounded, "alg temp",
           "Dream sampler: 0 = the top positions; > 0 draws positions by softmax(confidence / alg_temp)");
    auto& eps = b.real("eps", "0.001", 0, 1, "Dream eps", "Dream sampler: the timesteps run from 1 down to eps");
    eps.exclusive_min = eps.exclusive_max = true;
    b.choice("eos", "none", {"none", "logits_eos_inf", "confidence_eos_eot_inf"}, "EOS policy",
             "none = the reference; logits_eos_inf = EOS is never sampled; confidence_eos_eot_inf = EOS and "
             "EoT are committed last");
    b.choice("confidence", "auto", {"auto", "raw", "processed"}, "confidence source",
             "raw = softmax at T = 1 (LLaDA, SureLock); processed = after temperature, top-k, top-p (Dream)");
    auto& seed = b.integer("seed", "0", 0, kSeedMax, "seed", "Random seed: the same seed and settings give the same run");
    seed.task = true;
    auto& kl = b.choice("track_kl", "auto", {"auto", "on", "off"}, "track KL",
                        "Keep each position's previous posterior to report KL(p_t ‖ p_{t−1}); auto = when it fits 256 MiB");
    kl.task = true;
    auto& shown = b.integer("display_top_k", "5", 0, 64, "top-k shown", "Candidates per position recorded in the trace");
    shown.task = true;

    // --- strategy parameters ---------------------------------------------------------------
    auto& eps_lock = b.real("surelock.epsilon", "0.005", 0, kUnbounded, "SureLock ε",
                            "Lock a position once KL(p_t ‖ p_{t−1}) ≤ ε; 0 disables locking");
    eps_lock.log_scale = true;
    eps_lock.typical_min = 1e-6;
    eps_lock.typical_max = 1e-1;
    b.real("surelock.m", "20", 0, 100, "SureLock m", "Gate: only the m % most confident candidates may lock (100 = no gate)")
        .unit = "%";
    b.choice("surelock.gate_set", "candidates", {"candidates", "active"}, "SureLock gate set",
             "The positions the m % gate ranks: those that may lock, or every active one");
    b.add("surelock.unlock", SettingType::Flag, "off", "SureLock unlocking",
          "Budgeted unlocking: release a lock whose prediction drifts (the .unlock.* parameters)");
    b.integer("surelock.unlock.period", "8", 1, kCount, "unlock period", "Probe the locked positions every P steps")
        .unit = "steps";
    auto& eps_unlock = b.real("surelock.unlock.epsilon", "0.05", 0, kUnbounded, "unlock ε",
                              "Drift KL above which a lock may be released");
    eps_unlock.log_scale = true;
    eps_unlock.typical_min = 1e-4;
    eps_unlock.typical_max = 1;
    b.integer("surelock.unlock.interval", "4", 0, kCount, "unlock interval",
              "Steps a lock must last before it can be released")
        .unit = "steps";
    b.integer("surelock.unlock.cooldown", "4", 0, kCount, "unlock cooldown",
              "Steps before an unlocked position may lock again")
        .unit = "steps";
    auto& rho = b.real("surelock.unlock.rho", "0.5", 0, 1, "unlock ρ", "Re-locking an unlocked position needs KL ≤ ρ·ε");
    rho.exclusive_min = true;

    auto& k = b.real("selection.k", "0.8", 0, 1, "selection k", "Fraction of the rows recomputed each step");
    k.exclusive_min = true;
    b.integer("selection.refresh_every", "0", 0, kCount, "selection refresh",
              "Recompute every row every N steps; 0 = never after the first step")
        .unit = "steps";

    b.integer("freecache.block_length", "0", 0, kLength, "FreeCache block",
              "Block of the frozen-block cache; 0 = the decode's block length")
        .unit = "tokens";

    b.real("threshold.tau", "0.9", 0, 1, "threshold τ",
           "Commit every position whose confidence reaches τ, and always the most confident one");
    auto& factor = b.real("threshold.factor", "", 0, kUnbounded, "threshold factor",
                          "The factor rule instead of τ: commit the top n positions while (n + 1)(1 − c_n) < factor");
    factor.computed_default = "unset: the τ rule";
    factor.exclusive_min = true;
    b.integer("cache.refresh_every", "0", 0, kCount, "cache refresh",
              "Also refresh the K/V cache every N steps inside a block; 0 = at block boundaries only")
        .unit = "steps";

    auto& cover_block = b.integer("cover.block_length", "", 1, kLength, "COVER block", "Block of COVER's drafting");
    cover_block.computed_default = "the decode's block length; else 64 when gen_length is a multiple of 64, else gen_length";
    cover_block.unit = "tokens";
    b.real("cover.tau_draft", "0.8", 0, 1, "COVER τ_draft", "Draft every masked position whose confidence exceeds τ_draft");
    b.choice("cover.correction", "closed_form", {"closed_form", "recompute"}, "COVER correction",
             "The diagonal correction in closed form, or recomputed by a second forward (a check)");
    b.integer("cover.max_seeds", "0", 0, kCount, "COVER max seeds", "Cap on the seeds verified per step; 0 = the adaptive rule only");
    b.integer("cover.budget", "15", 1, kCount, "COVER budget B", "Most positions drafted per step");
    auto& cover_steps = b.integer("cover.max_steps", "", 1, 1 << 24, "COVER max steps", "Stop after this many steps");
    cover_steps.computed_default = "2 × gen_length";
    cover_steps.unit = "steps";

    auto& saber_block = b.integer("saber.block_length", "", 1, kLength, "Saber block", "Block of Saber's drafting");
    saber_block.computed_default = "the decode's block length, else gen_length";
    saber_block.unit = "tokens";
    b.integer("saber.n", "2", 1, kCount, "Saber n", "Fewest positions drafted per step");
    b.integer("saber.max_steps_per_block", "1024", 1, kCount, "Saber max steps", "Iteration cap per block (the reference's)")
        .unit = "steps";

    auto& wino_block = b.integer("wino.block_length", "", 1, kLength, "WINO block", "Block (and shadow block) length");
    wino_block.computed_default = "the decode's block length; else 128 when gen_length is a multiple of 128, else gen_length";
    wino_block.unit = "tokens";
    b.real("wino.threshold", "0.6", 0, 1, "WINO draft τ",
           "Wide in: draft every masked block position whose confidence exceeds τ");
    auto& wino_steps = b.integer("wino.max_steps", "", 1, 1 << 24, "WINO max steps", "Stop after this many steps");
    wino_steps.computed_default = "gen_length + 29 × blocks (never cuts a run short)";
    wino_steps.unit = "steps";
    b.real("wino.threshold_back", "0.9", 0, 1, "WINO verify τ",
           "Narrow out: re-mask a decoded token whose shadow probability falls below this");

    b.choice("guided.match", "argmax", {"argmax", "topk", "ratio"}, "guider match",
             "How the guider agrees with a draft token: its argmax, among its top k, or p / p_max ≥ ratio");
    b.integer("guided.k", "5", 1, 1 << 30, "guider top-k", "match = topk: the draft token is among the guider's k most probable");
    b.real("guided.ratio", "0.1", 0, 1, "guider ratio", "match = ratio: p(draft) / p(max) must reach this");
    b.integer("guided.chunk", "32", 1, kCount, "guider chunk", "Draft tokens the guider verifies per forward")
        .unit = "tokens";
    b.integer("guided.threads", "0", 0, 1024, "guider threads", "CPU threads of the guider; 0 = automatic");
    b.add("guided.eos_fill", SettingType::Flag, "on", "EOS fill",
          "Committing EOS or EoT fills every remaining mask with it (the reference's early stop)");
    auto& guider = b.add("guided.guider", SettingType::Text, "", "guider model",
                         "Checkpoint folder of the autoregressive guider (a qwen2-family model)");
    guider.computed_default = "tiny-ar beside the model's folder, else the smallest qwen2-family checkpoint there";

    // Parameters a run reads only under another setting's value.
    for (auto& spec : b.out) {
        if (spec.key.rfind("surelock.unlock.", 0) == 0) spec.only_when_key = "surelock.unlock", spec.only_when_value = "on";
        if (spec.key == "guided.k") spec.only_when_key = "guided.match", spec.only_when_value = "topk";
        if (spec.key == "guided.ratio") spec.only_when_key = "guided.match", spec.only_when_value = "ratio";
    }
    return std::move(b.out);
}

std::string number_text(double v) {
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    if (v >= 1.8e19) return "2^64-1";  // the seed's bound
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.10g", v);
    return buf;
}

// Levenshtein distance: single-character insertions, deletions and substitutions.
std::size_t edit_distance(std::string_view a, std::string_view b) {
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diagonal = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t up = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diagonal = up;
        }
    }
    return row[b.size()];
}

std::string joined(const std::vector<std::string>& xs, std::string_view separator = ", ") {
    std::string out;
    for (const auto& x : xs) out += (out.empty() ? "" : std::string(separator)) + x;
    return out;
}

// The strategy a settings map (key -> text) names, else the schema's default one.
std::string strategy_of(const std::map<std::string, std::string>& settings) {
    const auto it = settings.find("strategy");
    return it != settings.end() ? it->second : setting_spec("strategy").default_value;
}

// Whether two texts are one value of `spec`: "5e-3" and "0.005" are.
bool same_value(const SettingSpec& spec, const std::string& x, const std::string& y) {
    if (x == y) return true;
    if (spec.type != SettingType::Real && spec.type != SettingType::Integer) return false;
    char* end_a = nullptr;
    char* end_b = nullptr;
    const double a = std::strtod(x.c_str(), &end_a), b = std::strtod(y.c_str(), &end_b);
    return !x.empty() && !y.empty() && *end_a == '\0' && *end_b == '\0' && a == b;
}

// Whether a value's text is the spec's default.
bool is_default(const SettingSpec& spec, const std::string& value) { return same_value(spec, value, spec.default_value); }

// A key as a run's label shows it: a parameter of the run's own strategy without its namespace
// ("epsilon"), any other key whole ("threshold.tau", "temperature").
std::string key_in_label(const std::string& key, const SettingSpec* spec, const std::string& strategy) {
    return spec && spec->name_space() == strategy ? key.substr(strategy.size() + 1) : key;
}

}  // namespace

std::string_view setting_type_name(SettingType t) {
    switch (t) {
        case SettingType::Integer: return "integer";
        case SettingType::Real: return "real";
        case SettingType::Choice: return "choice";
        case SettingType::Flag: return "on/off";
        case SettingType::Text: return "text";
    }
    return "?";
}

std::string_view SettingSpec::name_space() const {
    const auto dot = key.find('.');
    return dot == std::string::npos ? std::string_view() : std::string_view(key).substr(0, dot);
}

std::string setting_range_text(const SettingSpec& s) {
    switch (s.type) {
        case SettingType::Integer:
        case SettingType::Real:
            return std::string(s.exclusive_min ? "(" : "[") + number_text(s.min) + ", " + number_text(s.max) +
                   (s.exclusive_max || std::isinf(s.max) ? ")" : "]");
        case SettingType::Choice:
        case SettingType::Flag: {
            std::string c;
            for (const auto& x : s.choices) c += (c.empty() ? "" : "|") + x;
            return c;
        }
        case SettingType::Text: return "text";
    }
    return "";
}

const std::vector<SettingSpec>& settings_schema() {
    static const std::vector<SettingSpec> schema = build_schema();
    return schema;
}

const SettingSpec* find_setting_spec(std::string_view key) {
    for (const auto& s : settings_schema())
        if (s.key == key) return &s;
    return nullptr;
}

const SettingSpec& setting_spec(std::string_view key) {
    if (const SettingSpec* s = find_setting_spec(key)) return *s;
    throw std::logic_error("setting '" + std::string(key) + "' is not declared in the settings schema");
}

namespace {
// Whether parameter `s` belongs to namespace `name`, or to a namespace strategy `name` reads.
bool parameter_of(const SettingSpec& s, std::string_view name, const std::set<std::string>& read) {
    return s.is_parameter() && (s.name_space() == name || read.count(std::string(s.name_space())));
}
}  // namespace

std::vector<const SettingSpec*> parameters_of(std::string_view name) {
    const std::set<std::string> read = namespaces_of(name);
    std::vector<const SettingSpec*> out;
    for (const auto& s : settings_schema())
        if (parameter_of(s, name, read)) out.push_back(&s);
    return out;
}

std::string unknown_setting_message(std::string_view key) {
    const std::string k(key);
    const bool parameter = k.find('.') != std::string::npos;
    std::string out = std::string(parameter ? "unknown strategy parameter '" : "unknown setting '") + k + "'";
    if (!parameter) {
        // "surelock", "fast-dllm" or "unlock": parameters without the rest of their key: a
        // namespace's or strategy's, or those of that name (before the typo check: 'surelock' is
        // two letters from 'surelock.m').
        const std::set<std::string> read = namespaces_of(k);
        std::vector<std::string> meant;
        for (const auto& s : settings_schema())
            if (parameter_of(s, k, read) || (s.is_parameter() && s.key.substr(s.key.rfind('.') + 1) == k))
                meant.push_back("'" + s.key + "'");
        if (meant.size() > 3)
            return out + " (strategy parameters are written <namespace>.<name>; '" + k + "' has " + joined(meant) + ")";
        if (!meant.empty())
            return out + " (strategy parameters are written <namespace>.<name>: did you mean " +
                   joined(meant, " or ") + "?)";
    }
    // A typo: at most a quarter of the key's characters (and at most 3) differ from a declared key.
    const SettingSpec* nearest = nullptr;
    std::size_t best = std::min<std::size_t>(3, std::max<std::size_t>(1, k.size() / 4)) + 1;
    for (const auto& s : settings_schema()) {
        const std::size_t d = edit_distance(k, s.key);
        if (d < best) best = d, nearest = &s;
    }
    if (nearest) return out + " (did you mean '" + nearest->key + "'?)";
    if (!parameter) {
        std::vector<std::string> keys;
        for (const auto& s : settings_schema())
            if (!s.is_parameter()) keys.push_back(s.key);
        return out + " (settings: " + joined(keys) + "; strategy parameters are written <namespace>.<name>)";
    }
    const std::string ns = k.substr(0, k.find('.'));
    std::vector<std::string> in_namespace;
    for (const auto& s : settings_schema())
        if (s.is_parameter() && s.name_space() == ns) in_namespace.push_back(s.key);
    if (!in_namespace.empty()) return out + " (" + ns + ".* has: " + joined(in_namespace) + ")";
    if (namespace_table().count(ns)) return out + " (" + ns + ".* has no parameters)";
    // "fast_dllm.threshold": the namespace is a strategy's name, not one of its parameter groups.
    std::string strategy = ns;
    for (char& c : strategy) if (c == '_') c = '-';
    std::vector<std::string> groups;
    for (const auto& g : namespaces_of(strategy)) groups.push_back(g + ".*");
    if (!groups.empty()) return out + " (strategy '" + strategy + "' reads " + joined(groups) + ")";
    std::vector<std::string> all;
    for (const auto& [name, readers] : namespace_table())
        if (name != "baseline") all.push_back(name);
    return out + " (the parameter namespaces: " + joined(all) + ")";
}

const std::vector<std::string>& strategies_reading(std::string_view name_space) {
    static const std::vector<std::string> none;
    const auto& t = namespace_table();
    auto it = t.find(name_space);
    return it == t.end() ? none : it->second;
}

std::set<std::string> namespaces_of(std::string_view strategy) {
    std::set<std::string> out;
    for (const auto& [ns, strategies] : namespace_table())
        for (const auto& s : strategies)
            if (s == strategy) out.insert(ns);
    return out;
}

std::string parameter_in_effect(const std::map<std::string, std::string>& settings, std::string_view key) {
    const SettingSpec& spec = setting_spec(key);
    if (!namespaces_of(strategy_of(settings)).count(std::string(spec.name_space()))) return {};
    const auto given = settings.find(spec.key);
    return given != settings.end() ? given->second : spec.default_value;
}

std::optional<bool> switch_value(std::string_view text) {
    for (const char* on : {"on", "true", "1", "yes"})
        if (text == on) return true;
    for (const char* off : {"off", "false", "0", "no"})
        if (text == off) return false;
    return std::nullopt;
}

std::string only_when_unmet(const SettingSpec& spec, const std::map<std::string, std::string>& settings) {
    if (spec.only_when_key.empty()) return {};
    const SettingSpec& condition = setting_spec(spec.only_when_key);
    const auto it = settings.find(condition.key);
    std::string value = it != settings.end() ? it->second : condition.default_value;
    if (condition.type == SettingType::Flag) {
        if (const auto on = switch_value(value)) value = *on ? "on" : "off";  // "true" is "on"
    }
    if (value == spec.only_when_value) return {};
    return "read only while " + spec.only_when_key + "=" + spec.only_when_value;
}

std::string strategy_label(const std::string& strategy, const std::map<std::string, std::string>& settings) {
    const std::set<std::string> read = namespaces_of(strategy);
    std::string changed;
    for (const auto& [key, value] : settings) {
        const SettingSpec* spec = find_setting_spec(key);
        if (!spec || !spec->is_parameter() || is_default(*spec, value)) continue;
        if (!read.count(std::string(spec->name_space()))) continue;  // another strategy's
        changed += (changed.empty() ? "" : ", ") + key_in_label(key, spec, strategy) + "=" + value;
    }
    return changed.empty() ? strategy : strategy + " (" + changed + ")";
}

std::map<std::string, std::string> default_settings() {
    std::map<std::string, std::string> out;
    for (const auto& s : settings_schema())
        if (!s.is_parameter()) out[s.key] = s.default_value;
    return out;
}

const std::vector<StrategyPreset>& strategy_presets() {
    static constexpr const char* kPaperBlock = "32";  // FlashDLM's and Fast-dLLM's block length
    static const std::vector<StrategyPreset> presets = [] {
        std::vector<StrategyPreset> p = {
            {"SureLock", "Lock converged positions (KL ≤ ε) and skip their rows", {{"strategy", "surelock"}}},
            // The paper's optional unlocking (its App. M): on the embedded model it wins back the
            // word problems that plain locking loses to stale K/V (docs/models.md).
            {"SureLock + unlocking", "SureLock that releases a lock whose prediction drifts (budgeted unlocking)",
             {{"strategy", "surelock"}, {"surelock.unlock", "on"}}},
            {"LLaDA low-confidence", "The reference LLaDA sampler: commit the most confident predictions",
             {{"strategy", "baseline"}, {"sampler", "llada"}}},
            {"LLaDA random", "The LLaDA sampler with uniformly random remasking",
             {{"strategy", "baseline"}, {"sampler", "llada"}, {"remasking", "random"}}},
            {"Dream entropy", "Dream's sampler: lowest-entropy positions first",
             {{"strategy", "baseline"}, {"sampler", "dream"}, {"alg", "entropy"}, {"block_length", "0"}}},
            {"Dream top-k margin", "Dream's sampler: largest top-1 / top-2 margin first",
             {{"strategy", "baseline"}, {"sampler", "dream"}, {"alg", "topk_margin"}, {"block_length", "0"}}},
            // Every other engine strategy, its parameters at their defaults (a test keeps one
            // preset per strategy, so a new strategy comes with its name and description).
            // The block strategies run on their papers' blocks of 32 tokens: over one block FreeCache
            // freezes only the prompt and Fast-dLLM's caches never refresh (apply_preset fits 32 to
            // canvases it does not divide).
            {"FreeCache", "FlashDLM's FreeCache: the prompt's and completed blocks' K/V frozen; rows from the current block on",
             {{"strategy", "freecache"}, {"block_length", kPaperBlock}}},
            {"Fast-dLLM threshold", "Commit every position of the block with confidence ≥ τ; every row computed",
             {{"strategy", "threshold"}, {"block_length", kPaperBlock}}},
            {"Fast-dLLM dual cache", "The threshold rule on Fast-dLLM's dual cache: only the current block's rows, refreshed per block",
             {{"strategy", "fast-dllm"}, {"block_length", kPaperBlock}}},
            {"Fast-dLLM prefix cache", "The threshold rule on the prefix cache: rows from the block start on, refreshed per block",
             {{"strategy", "fast-dllm-prefix"}, {"block_length", kPaperBlock}}},
            {"Selection", "Recompute a fraction k of the rows each step (dLLM-Cache style); the others keep their last state",
             {{"strategy", "selection"}}},
            {"SureLock + selection", "Locked rows skipped, and a fraction k of the others recomputed",
             {{"strategy", "surelock+selection"}}},
            {"SureLock + FreeCache", "Locked rows skipped inside FreeCache's window",
             {{"strategy", "surelock+freecache"}, {"block_length", kPaperBlock}}},
            {"COVER", "Threshold drafts verified in the same pass by K/V override: each seed kept, replaced or remasked",
             {{"strategy", "cover"}}},
            {"Saber", "Mean-confidence drafts with backtracking: the largest confidence drops are remasked",
             {{"strategy", "saber"}}},
            {"WINO", "Wide in, narrow out: threshold drafts, re-checked by a shadow block that masks each position alone",
             {{"strategy", "wino"}}},
            {"Guided Diffusion", "FlashDLM's guided decoding: an autoregressive guider keeps the longest agreeing prefix of the draft",
             {{"strategy", "guided"}}},
        };
        return p;
    }();
    return presets;
}

namespace {
std::string preset_key(std::string_view name) {
    std::string k;
    for (char c : name)
        if (c != ' ') k += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return k;
}
}  // namespace

const StrategyPreset* find_strategy_preset(std::string_view name) {
    for (const auto& p : strategy_presets())
        if (preset_key(p.name) == preset_key(name)) return &p;
    return nullptr;
}

std::string strategy_preset_names() {
    std::string out;
    for (const auto& p : strategy_presets()) out += (out.empty() ? "" : ", ") + p.name;
    return out;
}

std::map<std::string, std::string> apply_preset(const std::map<std::string, std::string>& current,
                                                const StrategyPreset& preset,
                                                const std::map<std::string, std::string>& defaults) {
    std::map<std::string, std::string> out;
    for (const auto& s : settings_schema()) {
        if (s.is_parameter()) continue;
        auto it = current.find(s.key);
        auto d = defaults.find(s.key);
        out[s.key] = s.task && it != current.end() ? it->second : d != defaults.end() ? d->second : s.default_value;
    }
    for (const auto& [k, v] : preset.settings) out[k] = v;
    // A block length the preset names must tile the canvas it is applied on.
    int gen = 0;
    const std::string& g = out["gen_length"];
    if (std::from_chars(g.data(), g.data() + g.size(), gen).ec == std::errc{})
        if (const auto block = preset_block_length(preset, gen)) out["block_length"] = std::to_string(*block);
    return out;
}

std::optional<int> preset_block_length(const StrategyPreset& preset, int gen_length) {
    const auto it = preset.settings.find("block_length");
    int block = 0;
    if (it == preset.settings.end() ||
        std::from_chars(it->second.data(), it->second.data() + it->second.size(), block).ec != std::errc{})
        return std::nullopt;
    return block_that_tiles(gen_length, block);
}

namespace {

// sampler=auto as the sampler it resolves to on a model of `family` (effective_sampler's rule).
std::map<std::string, std::string> with_sampler_resolved(std::map<std::string, std::string> s,
                                                         std::string_view family) {
    const auto it = s.find("sampler");
    if (family.empty() || it == s.end() || it->second != sampler_family_name(SamplerFamily::Auto)) return s;
    ModelConfig model;
    bool known = false;
    for (Family f : {Family::Llada, Family::Dream, Family::Qwen2})
        if (family_name(f) == family) model.family = f, known = true;
    if (!known) return s;  // a family this build does not know (a newer server's): as written
    it->second = std::string(sampler_family_name(effective_sampler(DecodeSettings{}, model)));
    return s;
}

}  // namespace

std::vector<std::string> preset_differences(const std::map<std::string, std::string>& current,
                                            const StrategyPreset& preset,
                                            const std::map<std::string, std::string>& defaults,
                                            std::string_view family) {
    const auto wanted = with_sampler_resolved(apply_preset(current, preset, defaults), family);
    // A key the settings lack (a trace written with fewer keys) was run at its default: the
    // model's, else the schema's; only a key without a fixed default is a difference.
    auto filled = current;
    for (const auto& [k, v] : wanted) {
        if (filled.count(k)) continue;
        const SettingSpec* spec = find_setting_spec(k);
        if (const auto d = defaults.find(k); d != defaults.end()) filled[k] = d->second;
        else if (spec && !spec->default_value.empty()) filled[k] = spec->default_value;
    }
    const auto now = with_sampler_resolved(filled, family);
    std::vector<std::string> keys;
    for (const auto& [k, v] : wanted)
        if (const auto it = now.find(k); it == now.end() || it->second != v) keys.push_back(k);
    for (const auto& [k, v] : now) {
        if (wanted.count(k)) continue;
        // A parameter given at its default changes nothing the run does ("surelock.m=20").
        const SettingSpec* spec = find_setting_spec(k);
        if (spec && spec->is_parameter() && is_default(*spec, v)) continue;
        keys.push_back(k);
    }
    return keys;
}

const StrategyPreset* matching_preset(const std::map<std::string, std::string>& current,
                                      const std::map<std::string, std::string>& defaults, std::string_view family) {
    for (const StrategyPreset& p : strategy_presets())
        if (preset_differences(current, p, defaults, family).empty()) return &p;
    return nullptr;
}

namespace {

// The preset of the run's strategy that its settings differ from least, the differences written
// out ("SureLock (temperature=0.5)"): a run of a preset with one thing changed keeps the name the
// user picked it by. Parameters of strategies the run does not read are no difference. Empty when
// no preset runs `strategy` (a trace from a build with strategies this one lacks).
std::string nearest_preset_label(const std::string& strategy, const std::map<std::string, std::string>& settings,
                                 std::string_view family, const std::map<std::string, std::string>& model_defaults) {
    const std::set<std::string> read = namespaces_of(strategy);
    const StrategyPreset* best = nullptr;
    std::vector<std::string> best_keys;
    for (const StrategyPreset& p : strategy_presets()) {
        const auto s = p.settings.find("strategy");
        if (s == p.settings.end() || s->second != strategy) continue;
        std::vector<std::string> keys;
        for (std::string& k : preset_differences(settings, p, model_defaults, family)) {
            const SettingSpec* spec = find_setting_spec(k);
            if (spec && spec->is_parameter() && !read.count(std::string(spec->name_space()))) continue;
            keys.push_back(std::move(k));
        }
        if (!best || keys.size() < best_keys.size()) best = &p, best_keys = std::move(keys);
    }
    if (!best) return {};
    // Three differences say what the run is; more would not fit a title (the settings panel and
    // `trace show` list them all).
    constexpr std::size_t kShown = 3;
    std::string changed;
    for (std::size_t i = 0; i < best_keys.size() && i < kShown; ++i) {
        const std::string& k = best_keys[i];
        const SettingSpec* spec = find_setting_spec(k);
        const auto v = settings.find(k);
        const std::string value = v != settings.end() ? v->second : spec ? spec->default_value : "";
        changed += (changed.empty() ? "" : ", ") + key_in_label(k, spec, strategy) + "=" + value;
    }
    if (best_keys.size() > kShown) changed += ", +" + std::to_string(best_keys.size() - kShown) + " more";
    return changed.empty() ? best->name : best->name + " (" + changed + ")";
}

}  // namespace

std::string run_label(const std::string& strategy, const std::map<std::string, std::string>& settings,
                      std::string_view family, const std::map<std::string, std::string>& model_defaults) {
    std::string preset = nearest_preset_label(strategy, settings, family, model_defaults);
    return preset.empty() ? strategy_label(strategy, settings) : preset;
}

std::string run_label_with_kind(const std::string& strategy, const std::map<std::string, std::string>& settings,
                                std::string_view family, const std::map<std::string, std::string>& model_defaults) {
    std::string preset = nearest_preset_label(strategy, settings, family, model_defaults);
    return preset.empty() ? "strategy " + strategy_label(strategy, settings) : "preset " + preset;
}

std::vector<SettingDifference> differing_settings(const std::map<std::string, std::string>& a,
                                                 const std::map<std::string, std::string>& b) {
    std::set<std::string> keys;
    for (const auto& [k, v] : a) keys.insert(k);
    for (const auto& [k, v] : b) keys.insert(k);
    std::vector<SettingDifference> out;
    for (const std::string& k : keys) {
        const SettingSpec* spec = find_setting_spec(k);
        // A side without the key ran at its default; one with no fixed default (computed from
        // other settings) is not comparable, and a run that lacks a parameter does not read it.
        auto value_of = [&](const std::map<std::string, std::string>& m) -> std::optional<std::string> {
            if (const auto it = m.find(k); it != m.end()) return it->second;
            if (!spec || spec->default_value.empty()) return std::nullopt;
            if (spec->is_parameter() && !namespaces_of(strategy_of(m)).count(std::string(spec->name_space())))
                return std::nullopt;
            return spec->default_value;
        };
        const auto va = value_of(a), vb = value_of(b);
        if (!va || !vb || (spec ? same_value(*spec, *va, *vb) : *va == *vb)) continue;
        out.push_back({k, *va, *vb});
    }
    // The strategy first: the parameters that follow belong to it.
    std::stable_partition(out.begin(), out.end(), [](const SettingDifference& d) { return d.key == "strategy"; });
    return out;
}

std::string run_label(const TraceHeader& h) {
    return run_label(h.strategy, h.settings_as_asked(), h.family, h.model_defaults);
}

std::string run_label_with_kind(const TraceHeader& h) {
    return run_label_with_kind(h.strategy, h.settings_as_asked(), h.family, h.model_defaults);
}

std::string settings_markdown() {
    auto range = [](const SettingSpec& s) -> std::string {
        if (s.type != SettingType::Choice && s.type != SettingType::Flag) return setting_range_text(s);
        std::string c;
        for (const auto& x : s.choices) c += (c.empty() ? "" : ", ") + ("`" + x + "`");
        return c;
    };
    auto row = [&](const SettingSpec& s) {
        const std::string def = s.default_value.empty() ? s.computed_default : "`" + s.default_value + "`";
        std::string help = s.help;
        if (!s.unit.empty()) help += " (" + s.unit + ")";
        if (!s.follows.empty()) help += "; follows `" + s.follows + "` when not given";
        if (!s.only_when_key.empty()) help += "; read only while `" + s.only_when_key + "=" + s.only_when_value + "`";
        return "| `" + s.key + "` | " + std::string(setting_type_name(s.type)) + " | " + def + " | " + range(s) + " | " +
               help + " |\n";
    };
    std::string out = "### Decode settings\n\n| key | type | default | range | meaning |\n|---|---|---|---|---|\n";
    for (const auto& s : settings_schema())
        if (!s.is_parameter()) out += row(s);
    std::string_view ns;
    for (const auto& s : settings_schema()) {
        if (!s.is_parameter()) continue;
        if (s.name_space() != ns) {
            ns = s.name_space();
            std::string readers;
            for (const auto& r : s.strategies) readers += (readers.empty() ? "" : ", ") + ("`" + r + "`");
            out += "\n### `" + std::string(ns) + ".*` (read by " + readers +
                   ")\n\n| key | type | default | range | meaning |\n|---|---|---|---|---|\n";
        }
        out += row(s);
    }
    out += "\n### Presets\n\nA preset sets what it names and resets every other setting to its default, "
           "except the task's (gen length, steps, block length, seed, trace detail), which it changes only where it "
           "names them. A block length it names is fitted to the canvas: 32 on a canvas of 48 becomes 24.\n\n"
           "| preset | sets | description |\n|---|---|---|\n";
    for (const auto& p : strategy_presets()) {
        std::string sets;
        for (const auto& [k, v] : p.settings) sets += (sets.empty() ? "" : ", ") + ("`" + k + "=" + v + "`");
        out += "| " + p.name + " | " + sets + " | " + p.description + " |\n";
    }
    return out;
}

}  // namespace dlm
