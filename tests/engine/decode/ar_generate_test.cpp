// Greedy decoding of a causal model through the engine (the guider's accuracy yardstick).
#include <gtest/gtest.h>

#include <filesystem>
#include <vector>

#include "compute/cpu/cpu_backend.h"
#include "decode/ar_generate.h"
#include "decode/ar_guider.h"
#include "decode/decode_session.h"
#include "model/checkpoint.h"
#include "util/error.h"

namespace dlm {
namespace {

std::filesystem::path models() { return std::filesystem::path(DLM_SOURCE_DIR) / "resources/models"; }

TEST(ArGenerate, GreedyTokensAreWhatTheGuiderWouldAcceptByArgmax) {
    ASSERT_TRUE(std::filesystem::exists(models() / "tiny-ar" / "config.json")) << "the embedded tiny-ar is missing";
    const Checkpoint ar = load_checkpoint(models() / "tiny-ar");
    CpuBackendOptions o;
    o.threads = 1;
    const auto backend = make_cpu_backend(ar.weights, o);
    const std::vector<int32_t> prompt = build_prompt(ar, "What is 23 + 45?", true);
    const ArGeneration g = ar_generate_greedy(*backend, prompt, 24, {});
    ASSERT_EQ(g.ids.size(), 24u);  // no stop ids: runs to max_new
    EXPECT_EQ(g.forwards, 24);
    EXPECT_GT(g.flops, 0.0);
    // Another code path (chunked verification against its own cache) agrees token for token:
    // every greedy token is the argmax after the ones before it.
    ArGuiderOptions go;
    go.threads = 1;
    ArGuider guider(load_checkpoint(models() / "tiny-ar"), nullptr, go);
    EXPECT_EQ(guider.verify(prompt, g.ids).accepted, 24);
    // With the model's stop ids it ends at the first of them, which it does not return.
    const std::vector<int32_t> stops = {ar.config().eos_token_id, ar.config().eot_token_id};
    const ArGeneration s = ar_generate_greedy(*backend, prompt, 200, stops);
    const std::vector<int32_t> prefix(g.ids.begin(), g.ids.begin() + std::min<std::size_t>(24, s.ids.size()));
    EXPECT_EQ(std::vector<int32_t>(s.ids.begin(), s.ids.begin() + prefix.size()), prefix);
    if (s.stopped) {
        for (int32_t id : s.ids) EXPECT_TRUE(id != stops[0] && id != stops[1]);
    }
}

TEST(ArGenerate, RefusesDiffusionModelsAndEmptyPrompts) {
    ASSERT_TRUE(std::filesystem::exists(models() / "tiny-mdlm" / "config.json")) << "the embedded tiny-mdlm is missing";
    const Checkpoint mdlm = load_checkpoint(models() / "tiny-mdlm");
    CpuBackendOptions o;
    o.threads = 1;
    const auto backend = make_cpu_backend(mdlm.weights, o);
    EXPECT_THROW(ar_generate_greedy(*backend, std::vector<int32_t>{1, 2}, 4, {}), Error);
    const Checkpoint ar = load_checkpoint(models() / "tiny-ar");
    const auto ar_backend = make_cpu_backend(ar.weights, o);
    EXPECT_THROW(ar_generate_greedy(*ar_backend, std::vector<int32_t>{}, 4, {}), Error);
}

}  // namespace
}  // namespace dlm
