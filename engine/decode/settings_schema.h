#pragma once
// Every decode setting and strategy parameter, declared once: key, type, default, range or
// choices, unit, one-line help, and which strategies read it; the strategy presets beside them.
// DecodeSettings, the strategy readers (StrategyParams), the CLI's help and `settings` command,
// the app's controls and the parameter tables of docs/strategies.md are all made from this table,
// so a default or a range cannot differ between them.
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace dlm {

struct TraceHeader;

enum class SettingType { Integer, Real, Choice, Flag, Text };
std::string_view setting_type_name(SettingType t);  // "integer", "real", "choice", "on/off", "text"

struct SettingSpec {
    std::string key;  // "gen_length", or "<namespace>.<name>" for a strategy parameter
    SettingType type = SettingType::Integer;
    // The default as set() reads it. Empty when it is computed from other settings; computed_default
    // then says how (e.g. "the decode's block length").
    std::string default_value;
    std::string computed_default;
    double min = 0, max = 0;  // Integer / Real: the range; max may be +infinity
    bool exclusive_min = false, exclusive_max = false;  // (0, 1] for top_p, ...
    std::vector<std::string> choices;  // Choice
    std::string label;  // a short name for a control ("SureLock ε")
    std::string unit;   // "tokens", "steps", "%", or empty
    std::string help;   // one line
    // Strategy parameters: the strategies that read it (from the namespace). Decode settings
    // (no '.') are read by every run.
    std::vector<std::string> strategies;
    // The task rather than the strategy: a preset leaves it as it is unless the preset names it.
    bool task = false;
    bool log_scale = false;  // a control should step it by decades (thresholds like ε)...
    double typical_min = 0, typical_max = 0;  // ...over this range (typed values may go past it)
    // When this setting is not given but `follows` is, it takes that setting's value (steps
    // follows gen_length: one step per token).
    std::string follows;
    // Read only while another setting of the same run has a value ("surelock.unlock" = "on" for
    // the unlock.* parameters): otherwise it has no effect, a given value is warned about, and a
    // control shows it dimmed.
    std::string only_when_key, only_when_value;

    bool is_parameter() const { return key.find('.') != std::string::npos; }
    std::string_view name_space() const;  // "surelock" for "surelock.epsilon", "" for a decode setting
};

inline constexpr double kUnbounded = std::numeric_limits<double>::infinity();

// Decode settings first (in the order a control panel shows them), then strategy parameters
// grouped by namespace.
const std::vector<SettingSpec>& settings_schema();
// "[0, 1]", "(0, 1]", "[0, inf)" for numbers; "a|b|c" for choices and switches; "text".
std::string setting_range_text(const SettingSpec& s);
// nullptr for a key the schema does not declare.
const SettingSpec* find_setting_spec(std::string_view key);
// Throws std::logic_error for an undeclared key: the engine's own readers name only declared keys.
const SettingSpec& setting_spec(std::string_view key);
// What to tell someone who typed a key the schema does not declare: the key, the nearest declared
// one when the difference looks like a typo, and otherwise what may be written there (the
// namespace's keys, the namespaces a strategy reads, or every namespace). A typo must not run
// silently with the default it meant to change.
std::string unknown_setting_message(std::string_view key);
// The parameters of a namespace ("surelock") or those a strategy reads ("fast-dllm": threshold.*
// and cache.*), in schema order; none for any other name.
std::vector<const SettingSpec*> parameters_of(std::string_view name);

// The value a run with these settings (key -> text, "strategy" among them; the schema's default
// strategy when not) uses for parameter `key`: the one given, else the schema's default; empty
// when its strategy does not read the key's namespace.
std::string parameter_in_effect(const std::map<std::string, std::string>& settings, std::string_view key);

// A switch's text as the value it means: on / true / 1 / yes, off / false / 0 / no; nullopt for
// anything else.
std::optional<bool> switch_value(std::string_view text);

// Empty when nothing keeps the run from reading `spec` (its only_when condition holds, or it has
// none); otherwise why it is not read: "read only while surelock.unlock=on". `settings` as for
// parameter_in_effect (a setting not given has its default).
std::string only_when_unmet(const SettingSpec& spec, const std::map<std::string, std::string>& settings);

// A run's strategy as a short label that tells its variants apart: the name, and the parameters
// it reads among `settings` that are given with another value than the default ("surelock
// (unlock=on)"; a parameter of another namespace keeps its namespace: "fast-dllm
// (threshold.tau=0.8)"). `settings` may be a trace header's map or DecodeSettings::params.
std::string strategy_label(const std::string& strategy, const std::map<std::string, std::string>& settings);

// The strategies whose builder reads the `<ns>.*` parameters.
const std::vector<std::string>& strategies_reading(std::string_view name_space);
// Parameter namespaces per strategy ("surelock+selection" -> {"selection", "surelock"}).
std::set<std::string> namespaces_of(std::string_view strategy);

// A named starting point. Applying one gives every setting it names its value, every other
// non-task setting its default, and drops strategy parameters it does not name; task settings
// (gen length, steps, block length, seed, trace detail) stay unless it names them; a block length
// it names is fitted to the canvas (block_that_tiles). The defaults are the schema's, or
// `defaults` where it has the key (a model's, see model_default_settings).
struct StrategyPreset {
    std::string name;
    std::string description;
    std::map<std::string, std::string> settings;
};
const std::vector<StrategyPreset>& strategy_presets();
// The preset of that name, case and spaces aside ("surelock + unlocking" is "SureLock +
// unlocking"); nullptr when there is none.
const StrategyPreset* find_strategy_preset(std::string_view name);
// "SureLock, SureLock + unlocking, ...": what a mistyped name is told.
std::string strategy_preset_names();
// The block length `preset` names, fitted to a canvas of `gen_length` (32 on 48: 24); none when
// it names none (its blocks are then the task's). apply_preset, `run --preset` and `eval
// --preset` (per example) fit it by this.
std::optional<int> preset_block_length(const StrategyPreset& preset, int gen_length);
std::map<std::string, std::string> apply_preset(const std::map<std::string, std::string>& current,
                                                const StrategyPreset& preset,
                                                const std::map<std::string, std::string>& defaults = {});
// The keys in which `current` differs from `preset` applied over it (none: the preset matches);
// a strategy parameter the preset does not name counts only when it is not at its default.
// `family` ("llada", "dream", "qwen2"; empty when no model is known) reads sampler=auto as the
// sampler it runs on that model, so a run asked for with sampler=auto on a LLaDA model is the
// "LLaDA low-confidence" preset it decodes as.
std::vector<std::string> preset_differences(const std::map<std::string, std::string>& current,
                                            const StrategyPreset& preset,
                                            const std::map<std::string, std::string>& defaults = {},
                                            std::string_view family = {});
// The first preset `current` matches (preset_differences is empty), nullptr when none does: the
// name a run of these settings goes by in the app's preset box and its run titles.
const StrategyPreset* matching_preset(const std::map<std::string, std::string>& current,
                                      const std::map<std::string, std::string>& defaults = {},
                                      std::string_view family = {});
// What a run goes by in the app's titles and the CLI's summaries: the preset of its strategy its
// settings are closest to, with what it changes ("SureLock + unlocking", "SureLock + unlocking
// (epsilon=1e-3)", "SureLock (temperature=0.5, +2 more)"), else (a strategy no preset runs)
// strategy_label. `settings` as the run asked for them; the preset is matched against the settings
// the model starts from (`model_defaults`: model_setting_changes, over the schema's defaults), as
// the app's preset box matches it.
std::string run_label(const std::string& strategy, const std::map<std::string, std::string>& settings,
                      std::string_view family = {}, const std::map<std::string, std::string>& model_defaults = {});
// run_label with what it names in front, for the CLI's summaries: "preset SureLock + unlocking",
// "preset SureLock (temperature=0.5)", or "strategy foo (x=1)" where no preset runs the strategy.
std::string run_label_with_kind(const std::string& strategy, const std::map<std::string, std::string>& settings,
                                std::string_view family = {},
                                const std::map<std::string, std::string>& model_defaults = {});
// One setting in which two runs differ, with each run's value.
struct SettingDifference {
    std::string key;
    std::string a, b;
};
// The settings (key -> text, a trace header's `settings`) in which run A and run B differ, the
// strategy first, then by key. A key one run lacks counts at its default, where it has a fixed
// one and the run reads it (its strategy's parameters); otherwise only where both runs have it.
// Numbers are compared as numbers ("5e-3" is "0.005").
std::vector<SettingDifference> differing_settings(const std::map<std::string, std::string>& a,
                                                 const std::map<std::string, std::string>& b);
// The two of a recorded run: its settings as asked, its model's family and starting settings.
std::string run_label(const TraceHeader& h);
std::string run_label_with_kind(const TraceHeader& h);
// The decode settings (no parameters) at their schema defaults, as key -> value text.
std::map<std::string, std::string> default_settings();

// The parameter and setting tables as markdown (docs/strategies.md carries this text between
// its "settings-schema" markers; a test keeps the two equal).
std::string settings_markdown();

}  // namespace dlm
