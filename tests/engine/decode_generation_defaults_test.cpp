// generation_config.json as decode defaults, on the files Dream and Qwen2.5 publish.
#include <gtest/gtest.h>

#include "decode/generation_defaults.h"
#include "support/error_text.h"

namespace dlm {
namespace {

const std::string kData = DLM_TEST_DATA_DIR;

TEST(GenerationDefaults, DreamsPublishedFile) {
    const GenerationDefaults d = read_generation_defaults(kData + "/dream-v0-instruct-7b");
    // alg origin, eps 1e-3, temperature 0; alg_temp, top_k and top_p are null (the schema's).
    EXPECT_EQ(d.settings, (std::map<std::string, std::string>{{"alg", "origin"}, {"eps", "0.001"}, {"temperature", "0"}}));
    ASSERT_EQ(d.notes.size(), 1u);
    EXPECT_NE(d.notes[0].find("steps=512"), std::string::npos);
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

}  // namespace
}  // namespace dlm
