// The settings schema is the one truth for defaults, ranges and choices: DecodeSettings, the
// strategy builders, presets and docs/strategies.md are checked against it here.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

#include "decode/settings_schema.h"
#include "decode/strategy.h"
#include "trace/step_trace.h"
#include "support/decode_fakes.h"
#include "util/error.h"

namespace dlm {
namespace {

std::string text_of(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
}

TEST(SettingsSchema, KeysAreUniqueAndParametersNameTheirReaders) {
    std::set<std::string> keys;
    for (const auto& s : settings_schema()) {
        EXPECT_TRUE(keys.insert(s.key).second) << "declared twice: " << s.key;
        EXPECT_FALSE(s.label.empty()) << s.key;
        EXPECT_FALSE(s.help.empty()) << s.key;
        EXPECT_NE(s.default_value.empty(), s.computed_default.empty())
            << s.key << ": a default, or a note on how it is computed (not both)";
        if (s.is_parameter()) EXPECT_FALSE(s.strategies.empty()) << s.key << " is read by no strategy";
        else EXPECT_TRUE(s.strategies.empty()) << s.key;
        for (const auto& r : s.strategies) {
            const auto known = known_strategies();
            EXPECT_NE(std::find(known.begin(), known.end(), r), known.end()) << s.key << ": unknown reader " << r;
        }
    }
}

// DecodeSettings{} is the schema's defaults, and to_map() names exactly the schema's settings.
TEST(SettingsSchema, DecodeSettingsDefaultsAreTheSchemas) {
    EXPECT_EQ(DecodeSettings{}.to_map(), default_settings());
}

// Every choice the schema offers is accepted by set(), every integer bound holds at the edge and
// fails one past it, and validate() draws real ranges where the schema does.
TEST(SettingsSchema, RangesAndChoicesAgreeWithTheReaders) {
    const ModelConfig c = test::fake_config();
    for (const auto& s : settings_schema()) {
        if (s.is_parameter()) continue;
        DecodeSettings d;
        if (s.type == SettingType::Choice) {
            for (const auto& choice : s.choices) EXPECT_NO_THROW(d.set(s.key, choice)) << s.key << "=" << choice;
            EXPECT_THROW(d.set(s.key, "no-such-choice"), Error) << s.key;
        } else if (s.type == SettingType::Integer) {
            const auto lo = static_cast<long long>(s.min);
            EXPECT_NO_THROW(d.set(s.key, std::to_string(lo))) << s.key;
            EXPECT_THROW(d.set(s.key, std::to_string(lo - 1)), Error) << s.key;
            if (s.max < 1e15) {
                const auto hi = static_cast<long long>(s.max);
                EXPECT_NO_THROW(d.set(s.key, std::to_string(hi))) << s.key;
                EXPECT_THROW(d.set(s.key, std::to_string(hi + 1)), Error) << s.key;
            }
        } else if (s.type == SettingType::Real) {
            auto error_on_key = [&](double v) {
                DecodeSettings e;
                e.sampler = SamplerFamily::Dream;  // eps and alg_temp are checked for the dream sampler
                e.gen_length = e.steps = 8;
                e.set(s.key, text_of(v));
                for (const auto& issue : validate(e, c, 4))
                    if (issue.is_error() && issue.key == s.key) return true;
                return false;
            };
            const double below = s.min - 1e-9 - std::abs(s.min) * 1e-6;
            EXPECT_TRUE(error_on_key(below)) << s.key << " accepts " << below;
            EXPECT_EQ(error_on_key(s.min), s.exclusive_min) << s.key << " at its minimum";
            if (!std::isinf(s.max)) {
                EXPECT_TRUE(error_on_key(s.max + 1e-6 + s.max * 1e-6)) << s.key << " past its maximum";
                EXPECT_EQ(error_on_key(s.max), s.exclusive_max) << s.key << " at its maximum";
            }
        }
    }
}

// Each strategy's builder reads the namespaces the schema lists for it, and every parameter's
// default (written out) builds the same strategy as leaving it unset. Guided needs a guider model
// on disk and is covered by its own tests.
TEST(SettingsSchema, StrategiesReadTheNamespacesTheSchemaLists) {
    const ModelConfig c = test::fake_config();
    for (const auto& name : known_strategies()) {
        if (name == "guided") continue;
        DecodeSettings s;
        s.strategy = name;
        s.gen_length = s.steps = 64;
        s.block_length = 32;
        Strategy st = make_strategy(s, c, 4);
        std::set<std::string> expected = namespaces_of(name);
        EXPECT_EQ(st.namespaces, expected) << name;
        for (const auto& spec : settings_schema())
            if (spec.is_parameter() && expected.count(std::string(spec.name_space())) && !spec.default_value.empty())
                s.params[spec.key] = spec.default_value;
        s.params.erase("threshold.factor");
        Strategy explicit_defaults = make_strategy(s, c, 4);
        EXPECT_EQ(explicit_defaults.unmask->name(), st.unmask->name()) << name;
        EXPECT_EQ(explicit_defaults.compute->name(), st.compute->name()) << name;
    }
}

TEST(SettingsSchema, ParameterValuesAreCheckedAgainstTheSchema) {
    const ModelConfig c = test::fake_config();
    DecodeSettings s;
    s.strategy = "surelock";
    s.gen_length = s.steps = 16;
    s.params["surelock.m"] = "101";
    try {
        make_strategy(s, c, 4);
        FAIL() << "surelock.m=101 accepted";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("outside [0, 100]"), std::string::npos) << e.what();
    }
    s.params = {{"surelock.unlock.rho", "0"}};
    EXPECT_THROW(make_strategy(s, c, 4), Error);  // (0, 1]: re-locking needs rho > 0
    s.strategy = "selection";
    s.params = {{"selection.k", "0"}};
    EXPECT_THROW(make_strategy(s, c, 4), Error);
}

// A preset sets what it names, resets every other strategy setting to its default, drops the
// parameters it does not name, and keeps the task (canvas, steps, seed).
TEST(SettingsSchema, TheParameterInEffectIsTheGivenValueOrTheDefaultOfAStrategyThatReadsIt) {
    EXPECT_EQ(parameter_in_effect({{"strategy", "surelock"}}, "surelock.epsilon"), "0.005");
    EXPECT_EQ(parameter_in_effect({{"strategy", "surelock+freecache"}, {"surelock.epsilon", "1e-3"}}, "surelock.epsilon"),
              "1e-3");
    EXPECT_EQ(parameter_in_effect({{"strategy", "fast-dllm"}, {"surelock.epsilon", "1e-3"}}, "surelock.epsilon"), "");
    EXPECT_EQ(parameter_in_effect({}, "surelock.epsilon"), "");  // the default strategy, baseline, does not lock
    EXPECT_EQ(parameter_in_effect({{"strategy", "fast-dllm"}}, "threshold.tau"), "0.9");
}

TEST(SettingsSchema, TheStrategyLabelNamesTheParametersThatDifferFromTheDefault) {
    EXPECT_EQ(strategy_label("surelock", {}), "surelock");
    EXPECT_EQ(strategy_label("surelock", {{"surelock.unlock", "on"}, {"surelock.m", "20"}, {"temperature", "0.5"}}),
              "surelock (unlock=on)");  // m = 20 is the default; decode settings are not the strategy's
    EXPECT_EQ(strategy_label("surelock", {{"surelock.epsilon", "5e-3"}}), "surelock");  // 0.005
    EXPECT_EQ(strategy_label("fast-dllm", {{"threshold.tau", "0.8"}, {"surelock.epsilon", "1"}}),
              "fast-dllm (threshold.tau=0.8)");  // surelock.* is not read by fast-dllm
}

TEST(SettingsSchema, PresetsResetWhatTheyDoNotName) {
    auto current = default_settings();
    current["gen_length"] = "160";
    current["steps"] = "160";
    current["seed"] = "7";
    current["temperature"] = "0.7";
    current["sampler"] = "dream";
    current["surelock.epsilon"] = "1e-4";
    const StrategyPreset* llada = find_strategy_preset("LLaDA random");
    ASSERT_NE(llada, nullptr);
    const auto out = apply_preset(current, *llada);
    EXPECT_EQ(out.at("gen_length"), "160");
    EXPECT_EQ(out.at("seed"), "7");
    EXPECT_EQ(out.at("temperature"), "0");
    EXPECT_EQ(out.at("sampler"), "llada");
    EXPECT_EQ(out.at("remasking"), "random");
    EXPECT_EQ(out.count("surelock.epsilon"), 0u);
    EXPECT_EQ(apply_preset(out, *llada), out);  // applying twice changes nothing

    for (const auto& p : strategy_presets()) {
        DecodeSettings d;
        for (const auto& [k, v] : p.settings) {
            EXPECT_NE(find_setting_spec(k), nullptr) << p.name << " sets an undeclared " << k;
            EXPECT_NO_THROW(d.set(k, v)) << p.name;
        }
    }
}

// The preset box offers every engine strategy, each under a name a person reads and with what
// it does: a strategy added without its preset fails here.
TEST(SettingsSchema, EveryStrategyHasANamedPreset) {
    EXPECT_EQ(find_strategy_preset("surelock + UNLOCKING"), find_strategy_preset("SureLock + unlocking"));
    EXPECT_EQ(find_strategy_preset("SureLok"), nullptr);
    std::set<std::string> names;
    for (const auto& p : strategy_presets()) {
        EXPECT_TRUE(names.insert(p.name).second) << "two presets named " << p.name;
        EXPECT_GE(p.description.size(), 20u) << p.name;
        EXPECT_NE(p.name, p.settings.at("strategy")) << p.name << ": the preset's name is its strategy key";
    }
    for (const auto& strategy : known_strategies()) {
        const bool offered = std::any_of(strategy_presets().begin(), strategy_presets().end(),
                                         [&](const StrategyPreset& p) { return p.settings.at("strategy") == strategy; });
        EXPECT_TRUE(offered) << "no preset runs the strategy " << strategy;
    }
}

// A run asked for with sampler=auto is the preset it decodes as on the model at hand: "LLaDA
// low-confidence" on a LLaDA model, not on a Dream one (Dream's own sampler runs there), nor
// when no model says which.
TEST(SettingsSchema, AnAutoSamplerMatchesThePresetOfTheModelsOwnSampler) {
    const StrategyPreset* low_confidence = find_strategy_preset("LLaDA low-confidence");
    const StrategyPreset* surelock = find_strategy_preset("SureLock");
    ASSERT_NE(low_confidence, nullptr);
    ASSERT_NE(surelock, nullptr);
    auto baseline = default_settings();
    baseline["strategy"] = "baseline";
    ASSERT_EQ(baseline.at("sampler"), "auto");
    EXPECT_TRUE(preset_differences(baseline, *low_confidence, {}, "llada").empty());
    EXPECT_EQ(preset_differences(baseline, *low_confidence, {}, "dream"), std::vector<std::string>{"sampler"});
    EXPECT_EQ(preset_differences(baseline, *low_confidence), std::vector<std::string>{"sampler"});
    EXPECT_EQ(preset_differences(baseline, *low_confidence, {}, "mamba"), std::vector<std::string>{"sampler"});
    // Presets that leave the sampler alone still match an auto one, on any model.
    auto locking = default_settings();
    locking["strategy"] = "surelock";
    for (std::string_view family : {"", "llada", "dream"})
        EXPECT_TRUE(preset_differences(locking, *surelock, {}, family).empty()) << family;
    EXPECT_EQ(preset_differences(baseline, *surelock, {}, "llada"), std::vector<std::string>{"strategy"});
}

// SureLock's optional budgeted unlocking has a preset of its own, and the two SureLock presets
// stay apart: choosing plain SureLock after it turns unlocking off again.
TEST(SettingsSchema, SureLockWithUnlockingIsAPresetOfItsOwn) {
    const StrategyPreset* plain = find_strategy_preset("SureLock");
    const StrategyPreset* unlocking = find_strategy_preset("SureLock + unlocking");
    ASSERT_NE(plain, nullptr);
    ASSERT_NE(unlocking, nullptr);
    const auto with = apply_preset(default_settings(), *unlocking);
    EXPECT_EQ(with.at("strategy"), "surelock");
    EXPECT_EQ(with.at("surelock.unlock"), "on");
    DecodeSettings d;
    for (const auto& [k, v] : with) d.set(k, v);
    EXPECT_EQ(d.params.at("surelock.unlock"), "on");
    const auto back = apply_preset(with, *plain);
    EXPECT_EQ(back.count("surelock.unlock"), 0u);
    EXPECT_NE(back, with);
}


// The block strategies' presets decode on their papers' blocks of 32 (over one block FreeCache
// would freeze only the prompt), fitted to a canvas 32 does not divide; the fitted length still
// matches the preset, and one-block presets leave the user's block length alone.
TEST(SettingsSchema, BlockStrategyPresetsBringTheirBlocksFittedToTheCanvas) {
    for (const char* name : {"FreeCache", "SureLock + FreeCache", "Fast-dLLM threshold", "Fast-dLLM dual cache",
                             "Fast-dLLM prefix cache"}) {
        const StrategyPreset* p = find_strategy_preset(name);
        ASSERT_NE(p, nullptr) << name;
        auto on = [&](const char* gen) {
            auto current = default_settings();
            current["gen_length"] = gen;
            current["steps"] = gen;
            return apply_preset(current, *p);
        };
        EXPECT_EQ(on("192").at("block_length"), "32") << name;
        EXPECT_EQ(preset_block_length(*p, 40), 20) << name;
        const auto fitted = on("48");
        EXPECT_EQ(fitted.at("block_length"), "24") << name;
        EXPECT_TRUE(preset_differences(fitted, *p).empty()) << name;
        auto resized = fitted;
        resized["block_length"] = "16";
        EXPECT_EQ(preset_differences(resized, *p), std::vector<std::string>{"block_length"}) << name;
        DecodeSettings d;
        for (const auto& [k, v] : fitted) d.set(k, v);
        for (const SettingsIssue& issue : validate(d, test::fake_config(), 4))
            EXPECT_FALSE(issue.is_error()) << name << ": " << issue.message;
    }
    EXPECT_FALSE(preset_block_length(*find_strategy_preset("SureLock"), 48).has_value());
    auto mine = default_settings();
    mine["block_length"] = "16";
    EXPECT_EQ(apply_preset(mine, *find_strategy_preset("SureLock")).at("block_length"), "16");
}
// The name a run goes by: the preset its settings are, or none once a setting departs from it.
TEST(SettingsSchema, SettingsMatchThePresetTheyAre) {
    auto s = apply_preset(default_settings(), *find_strategy_preset("SureLock + unlocking"));
    ASSERT_NE(matching_preset(s), nullptr);
    EXPECT_EQ(matching_preset(s)->name, "SureLock + unlocking");
    s["surelock.m"] = "20.0";  // a parameter at its default departs from nothing
    EXPECT_EQ(matching_preset(s)->name, "SureLock + unlocking");
    s["surelock.m"] = "30";
    EXPECT_EQ(matching_preset(s), nullptr);
    s["surelock.m"] = "20";
    s["temperature"] = "0.7";
    EXPECT_EQ(matching_preset(s), nullptr);
    auto baseline = default_settings();
    baseline["strategy"] = "baseline";
    EXPECT_EQ(matching_preset(baseline, {}, "llada")->name, "LLaDA low-confidence");
    EXPECT_EQ(matching_preset(baseline, {}, "dream")->name, "Dream entropy");
}

// A run goes by its preset's name on a model whose generation_config.json changes the sampling
// (Dream's temperature 0.2, top-p 0.95), as the app's preset box names it there; the same settings
// on a model without those defaults are no preset's.
TEST(SettingsSchema, ARunIsNamedAgainstTheSettingsItsModelStartsFrom) {
    const std::map<std::string, std::string> dream = {{"temperature", "0.2"}, {"top_p", "0.95"}};
    auto s = apply_preset(default_settings(), *find_strategy_preset("SureLock"), dream);
    ASSERT_EQ(s.at("temperature"), "0.2");
    EXPECT_EQ(run_label(s.at("strategy"), s, "dream", dream), "SureLock");
    EXPECT_EQ(run_label_with_kind(s.at("strategy"), s, "dream", dream), "preset SureLock");
    // Without those defaults the run is SureLock at another temperature and top-p, and says so.
    EXPECT_EQ(run_label(s.at("strategy"), s, "dream"), "SureLock (temperature=0.2, top_p=0.95)");
    EXPECT_EQ(run_label_with_kind(s.at("strategy"), s, "dream"), "preset SureLock (temperature=0.2, top_p=0.95)");
    TraceHeader h;
    h.strategy = "surelock";
    h.family = "dream";
    h.settings = s;
    h.model_defaults = dream;
    EXPECT_EQ(run_label(h), "SureLock");
}

// A run that is no preset goes by the preset of its strategy it is closest to, with what it
// changes: the name it was picked by stays in its title, and two runs that differ in one setting
// are told apart by it.
TEST(SettingsSchema, ARunThatIsNoPresetIsNamedByItsNearestPresetAndTheChange) {
    auto unlocking = apply_preset(default_settings(), *find_strategy_preset("SureLock + unlocking"));
    EXPECT_EQ(run_label("surelock", unlocking), "SureLock + unlocking");
    unlocking["surelock.epsilon"] = "1e-3";
    EXPECT_EQ(run_label("surelock", unlocking), "SureLock + unlocking (epsilon=1e-3)");  // one change, not two from SureLock
    unlocking["cover.tau_draft"] = "0.5";  // a parameter surelock does not read changes nothing
    EXPECT_EQ(run_label("surelock", unlocking), "SureLock + unlocking (epsilon=1e-3)");
    auto warm = apply_preset(default_settings(), *find_strategy_preset("LLaDA low-confidence"));
    warm["temperature"] = "0.5";
    EXPECT_EQ(run_label("baseline", warm, "llada"), "LLaDA low-confidence (temperature=0.5)");
    warm["top_p"] = "0.9";
    warm["top_k"] = "40";
    warm["cfg_scale"] = "1.5";
    EXPECT_EQ(run_label("baseline", warm, "llada"), "LLaDA low-confidence (cfg_scale=1.5, temperature=0.5, top_k=40, +1 more)");
    // Settings that lack keys (a trace written with fewer) ran at the defaults: no change.
    EXPECT_EQ(run_label("surelock", {{"strategy", "surelock"}}, "llada"), "SureLock");
    EXPECT_EQ(run_label("surelock", {{"strategy", "surelock"}, {"temperature", "0.5"}}, "llada"), "SureLock (temperature=0.5)");
    // A strategy no preset runs (a trace from a newer build): its parameters, as before.
    EXPECT_EQ(run_label("future", {{"temperature", "0.5"}}), "future");
    EXPECT_EQ(run_label_with_kind("future", {}), "strategy future");
}

// Compare mode says what B changed: the settings in which two runs differ, the strategy first,
// numbers as numbers, a missing key at its default only where that run reads it.
TEST(SettingsSchema, TwoRunsDifferInTheSettingsThatChange) {
    const std::map<std::string, std::string> a = {
        {"strategy", "surelock"}, {"temperature", "0"}, {"seed", "0"}, {"surelock.epsilon", "5e-3"}};
    auto b = a;
    b["surelock.epsilon"] = "0.005";  // the same number
    EXPECT_TRUE(differing_settings(a, b).empty());
    b["temperature"] = "0.7";
    b["seed"] = "3";
    auto d = differing_settings(a, b);
    ASSERT_EQ(d.size(), 2u);
    EXPECT_EQ(d[0].key, "seed");
    EXPECT_EQ(d[0].a, "0");
    EXPECT_EQ(d[0].b, "3");
    EXPECT_EQ(d[1].key, "temperature");
    b.erase("surelock.epsilon");  // not given: B ran at the default 0.005
    EXPECT_EQ(differing_settings(a, b).size(), 2u);
    auto c = a;
    c["surelock.epsilon"] = "1e-3";
    c.erase("temperature");  // the default, 0
    d = differing_settings(a, c);
    ASSERT_EQ(d.size(), 1u);
    EXPECT_EQ(d[0].key, "surelock.epsilon");
    // Another strategy: it comes first, and the parameters only A's strategy reads are no difference.
    const std::map<std::string, std::string> fast = {{"strategy", "fast-dllm"}, {"temperature", "0"}, {"seed", "0"}};
    d = differing_settings(c, fast);
    ASSERT_EQ(d.size(), 1u);
    EXPECT_EQ(d[0].key, "strategy");
    EXPECT_EQ(d[0].a, "surelock");
    EXPECT_EQ(d[0].b, "fast-dllm");
}

// docs/strategies.md carries the schema's tables verbatim between its markers.
TEST(SettingsSchema, DocsCarryTheSchemaTables) {
    std::ifstream f(std::string(DLM_SOURCE_DIR) + "/docs/strategies.md");
    std::stringstream ss;
    ss << f.rdbuf();
    const std::string doc = ss.str();
    const std::string begin = "<!-- settings-schema: begin (dlmscope-cli settings --markdown) -->\n";
    const std::string end = "<!-- settings-schema: end -->";
    const auto b = doc.find(begin), e = doc.find(end);
    ASSERT_NE(b, std::string::npos) << "docs/strategies.md lacks the settings-schema markers";
    ASSERT_NE(e, std::string::npos);
    EXPECT_EQ(doc.substr(b + begin.size(), e - b - begin.size()), settings_markdown())
        << "docs/strategies.md differs from the schema: regenerate with dlmscope-cli settings --markdown";
}

}  // namespace
}  // namespace dlm
