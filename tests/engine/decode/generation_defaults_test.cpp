// generation_config.json as decode defaults, on the files Dream and Qwen2.5 publish.
#include <gtest/gtest.h>

#include "decode/decode_settings.h"
#include "decode/generation_defaults.h"
#include "decode/settings_schema.h"
#include "support/error_text.h"

namespace dlm {
namespace {

const std::string kData = DLM_TEST_DATA_DIR;

TEST(GenerationDefaults, DreamsPublishedFile) {
    const GenerationDefaults d = read_generation_defaults(kData + "/dream-v0-instruct-7b");
    // alg origin, eps 1e-3, temperature 0; alg_temp, top_k and top_p are null (the schema's).
    EXPECT_EQ(d.settings, (std::map<std::string, std::string>{{"alg", "origin"}, {"eps", "0.001"}, {"temperature", "0"}}));
    EXPECT_EQ(d.task, (std::map<std::string, std::string>{{"steps", "512"}}));
    EXPECT_TRUE(d.notes.empty());
}

TEST(GenerationDefaults, QwensPublishedFile) {
    const GenerationDefaults d = read_generation_defaults(kData + "/qwen2.5-0.5b-instruct");
    EXPECT_EQ(d.settings.at("temperature"), "0.7");
    EXPECT_EQ(d.settings.at("top_k"), "20");
    EXPECT_EQ(d.settings.count("repetition_penalty"), 0u);  // not a setting of ours
}

TEST(GenerationDefaults, GreedyWhenNotSamplingAndBadValuesAreNoted) {
    const GenerationDefaults d =
        parse_generation_defaults(R"({"do_sample": false, "temperature": 0.9, "top_p": 7, "alg": "best"})", "g.json");
    EXPECT_EQ(d.settings.at("temperature"), "0");
    EXPECT_EQ(d.settings.count("alg"), 0u);
    ASSERT_EQ(d.notes.size(), 1u);  // alg=best is not one of Dream's orders (top_p=7 is range-checked by validate)
    EXPECT_NE(test::error_of([] { parse_generation_defaults("[1]", "g.json"); }).find("g.json: expected a JSON object"),
              std::string::npos);
    EXPECT_TRUE(read_generation_defaults(kData + "/no-such-folder").settings.empty());
}

// The task's size: max_new_tokens is the gen length and steps the steps, both under what the user
// sets; steps for a longer canvas than the one in use are noted, not applied.
TEST(GenerationDefaults, TheTasksSizeIsADefaultUnderTheUsers) {
    const GenerationDefaults d =
        parse_generation_defaults(R"({"max_new_tokens": 64, "steps": 32, "temperature": 0.5})", "g.json");
    DecodeSettings s;
    EXPECT_TRUE(layer_generation_defaults(s, d, {}).empty());
    EXPECT_EQ(s.gen_length, 64);
    EXPECT_EQ(s.steps, 32);
    EXPECT_EQ(s.temperature, 0.5);

    DecodeSettings user;
    user.set("gen_length", "16");
    layer_generation_defaults(user, d, {"gen_length"});
    EXPECT_EQ(user.gen_length, 16);  // the user's canvas; the model's steps are for another
    EXPECT_EQ(user.temperature, 0.5);

    const GenerationDefaults dream = parse_generation_defaults(R"({"steps": 512})", "g.json");
    DecodeSettings longer;
    const auto notes = layer_generation_defaults(longer, dream, {});
    EXPECT_EQ(longer.steps, longer.gen_length);
    ASSERT_EQ(notes.size(), 1u);
    EXPECT_NE(notes[0].find("steps=512"), std::string::npos) << notes[0];

    const GenerationDefaults bad = parse_generation_defaults(R"({"max_new_tokens": -3, "steps": 2.5})", "g.json");
    EXPECT_TRUE(bad.task.empty());
    EXPECT_EQ(bad.notes.size(), 2u);
}

// A model's defaults as the settings it starts from, and presets resetting to them (not to the
// schema's) for what they do not name.
TEST(GenerationDefaults, ModelDefaultsAreWhatPresetsResetTo) {
    const GenerationDefaults d = parse_generation_defaults(R"({"temperature": 0.7, "top_k": 20})", "g.json");
    const auto base = default_settings();
    const auto model = model_default_settings(base, d);
    EXPECT_EQ(model.at("temperature"), "0.7");
    EXPECT_EQ(model.at("top_k"), "20");
    for (const auto& [key, value] : base)
        if (key != "temperature" && key != "top_k") EXPECT_EQ(model.at(key), value) << key;

    auto current = model;
    current["temperature"] = "1.5";  // the user's change, which a preset resets
    const StrategyPreset& preset = strategy_presets().at(1);
    EXPECT_EQ(apply_preset(current, preset, model).at("temperature"), "0.7");
    EXPECT_EQ(apply_preset(current, preset).at("temperature"), base.at("temperature"));
}

}  // namespace
}  // namespace dlm
