// DecodeSettings parsing and validation messages.
#include <gtest/gtest.h>

#include "decode/decode_settings.h"
#include "support/decode_fakes.h"
#include "util/error.h"
#include "support/error_text.h"

namespace dlm {
namespace {

using test::error_of;

bool mentions(const std::vector<SettingsIssue>& issues, SettingsIssue::Severity sev, const std::string& key,
              const std::string& text) {
    for (const auto& i : issues)
        if (i.severity == sev && i.key == key && i.message.find(text) != std::string::npos) return true;
    return false;
}
constexpr auto kError = SettingsIssue::Severity::Error;
constexpr auto kWarning = SettingsIssue::Severity::Warning;

TEST(DecodeSettings, SetParsesEveryKey) {
    DecodeSettings s;
    s.set("sampler", "dream");
    s.set("gen_length=64");
    s.set(" steps = 32 ");
    s.set("block_length", "16");
    s.set("temperature", "0.25");
    s.set("top_p", "0.95");
    s.set("top_k", "40");
    s.set("cfg_scale", "1.5");
    s.set("remasking", "random");
    s.set("alg", "topk_margin");
    s.set("alg_temp", "0.1");
    s.set("eps", "1e-4");
    s.set("eos", "confidence_eos_eot_inf");
    s.set("confidence", "processed");
    s.set("seed", "18446744073709551615");
    s.set("strategy", "baseline");
    s.set("track_kl", "off");
    s.set("display_top_k", "3");
    s.set("surelock.epsilon", "5e-4");
    EXPECT_EQ(s.sampler, SamplerFamily::Dream);
    EXPECT_EQ(s.gen_length, 64);
    EXPECT_EQ(s.steps, 32);
    EXPECT_EQ(s.block_length, 16);
    EXPECT_DOUBLE_EQ(s.temperature, 0.25);
    EXPECT_DOUBLE_EQ(s.top_p, 0.95);
    EXPECT_EQ(s.top_k, 40);
    EXPECT_DOUBLE_EQ(s.cfg_scale, 1.5);
    EXPECT_EQ(s.remasking, Remasking::Random);
    EXPECT_EQ(s.alg, DreamAlg::TopkMargin);
    EXPECT_DOUBLE_EQ(s.alg_temp, 0.1);
    EXPECT_DOUBLE_EQ(s.eps, 1e-4);
    EXPECT_EQ(s.eos, EosPolicy::ConfidenceEosEotInf);
    EXPECT_EQ(s.confidence, ConfidenceSource::Processed);
    EXPECT_EQ(s.seed, 18446744073709551615ull);
    EXPECT_EQ(s.track_kl, TrackKl::Off);
    EXPECT_EQ(s.display_top_k, 3);
    EXPECT_EQ(s.params.at("surelock.epsilon"), "5e-4");
}

TEST(DecodeSettings, ToMapRoundTripsThroughSet) {
    DecodeSettings a;
    a.sampler = SamplerFamily::Llada;
    a.temperature = 0.1;  // not exactly representable: must still round-trip
    a.top_p = 0.9;
    a.eps = 1e-3;
    a.seed = 1234567890123ull;
    a.eos = EosPolicy::LogitsEosInf;
    a.params["wino.threshold"] = "0.7";
    DecodeSettings b;
    b.sampler = SamplerFamily::Dream;
    for (const auto& [k, v] : a.to_map()) b.set(k, v);
    EXPECT_EQ(a.to_map(), b.to_map());
    EXPECT_EQ(b.temperature, 0.1);
    EXPECT_EQ(b.seed, 1234567890123ull);
    for (const auto& k : DecodeSettings::known_keys()) EXPECT_TRUE(a.to_map().count(k)) << k;
}

// One rule for the app's canvas picker and the benchmarks: blocks tile the canvas.
TEST(DecodeSettings, BlockThatTilesIsTheLargestDivisorNotAboveTheBlock) {
    EXPECT_EQ(block_that_tiles(48, 32), 24);
    EXPECT_EQ(block_that_tiles(40, 32), 20);
    EXPECT_EQ(block_that_tiles(256, 32), 32);
    EXPECT_EQ(block_that_tiles(24, 32), 24);  // longer than the canvas: one block
    EXPECT_EQ(block_that_tiles(37, 32), 1);   // a prime canvas: blocks of one
    EXPECT_EQ(block_that_tiles(48, 0), 0);    // one block stays one block
    EXPECT_EQ(block_that_tiles(0, 32), 32);   // no canvas yet: unchanged
}

TEST(DecodeSettings, UnknownKeyNamesTheKnownOnes) {
    DecodeSettings s;
    const auto msg = error_of([&] { s.set("temprature", "0.5"); });
    EXPECT_NE(msg.find("unknown setting 'temprature'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("did you mean 'temperature'?"), std::string::npos) << msg;
    const auto far = error_of([&] { s.set("no_such_setting", "1"); });
    EXPECT_NE(far.find("(settings: strategy, sampler, gen_length"), std::string::npos) << far;
}

TEST(DecodeSettings, AStrategyParameterNoStrategyDeclaresIsRefusedWithWhatWasMeant) {
    DecodeSettings s;
    // A typo names the key it is nearest to.
    auto msg = error_of([&] { s.set("surelock.epsilom", "1e-3"); });
    EXPECT_NE(msg.find("unknown strategy parameter 'surelock.epsilom'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("did you mean 'surelock.epsilon'?"), std::string::npos) << msg;
    // A strategy's name used as the namespace: the namespaces that strategy reads.
    msg = error_of([&] { s.set("fast_dllm.threshold", "0.5"); });
    EXPECT_NE(msg.find("strategy 'fast-dllm' reads cache.*, threshold.*"), std::string::npos) << msg;
    // A known namespace, an unknown name: the namespace's keys.
    msg = error_of([&] { s.set("cover.thresholdd_of_drafts", "0.5"); });
    EXPECT_NE(msg.find("cover.* has: cover.block_length, cover.tau_draft"), std::string::npos) << msg;
    // A parameter's name, or its namespace, without the rest of the key.
    msg = error_of([&] { s.set("unlock", "on"); });
    EXPECT_NE(msg.find("did you mean 'surelock.unlock'?"), std::string::npos) << msg;
    msg = error_of([&] { s.set("epsilon", "1e-3"); });
    EXPECT_NE(msg.find("did you mean 'surelock.epsilon' or 'surelock.unlock.epsilon'?"), std::string::npos) << msg;
    msg = error_of([&] { s.set("surelock", "on"); });  // not 'surelock.m', two letters away
    EXPECT_NE(msg.find("'surelock' has 'surelock.epsilon', 'surelock.m', "), std::string::npos) << msg;
    msg = error_of([&] { s.set("fast-dllm", "0.9"); });
    EXPECT_NE(msg.find("did you mean 'threshold.tau' or 'threshold.factor' or 'cache.refresh_every'?"), std::string::npos) << msg;
    msg = error_of([&] { s.set("threshold", "0.9"); });
    EXPECT_NE(msg.find("'threshold.tau' or 'threshold.factor' or 'wino.threshold'"), std::string::npos) << msg;
    // Nothing like it: every namespace.
    msg = error_of([&] { s.set("warp.speed", "9"); });
    EXPECT_NE(msg.find("the parameter namespaces: cache, cover"), std::string::npos) << msg;
    EXPECT_TRUE(s.params.empty());
    // A key put straight into the map is an error of validate(); another strategy's, a warning.
    s.gen_length = s.steps = 16;
    s.params["warp.speed"] = "9";
    s.params["threshold.tau"] = "0.5";
    const auto issues = validate(s, test::fake_config(), 4);
    EXPECT_TRUE(mentions(issues, kError, "warp.speed", "unknown strategy parameter 'warp.speed'"));
    EXPECT_TRUE(mentions(issues, kWarning, "threshold.tau", "belongs to another strategy; 'baseline' ignores it"));
    s.params.erase("warp.speed");
    s.strategy = "fast-dllm";
    EXPECT_TRUE(validate(s, test::fake_config(), 4).empty());
}

TEST(DecodeSettings, BadValuesAreRejectedWithTheAcceptedOnes) {
    DecodeSettings s;
    auto msg = error_of([&] { s.set("alg", "greedy"); });
    EXPECT_NE(msg.find("maskgit_plus"), std::string::npos) << msg;
    msg = error_of([&] { s.set("steps", "12x"); });
    EXPECT_NE(msg.find("not an integer"), std::string::npos) << msg;
    msg = error_of([&] { s.set("steps", "0"); });
    EXPECT_NE(msg.find("outside"), std::string::npos) << msg;
    msg = error_of([&] { s.set("temperature", "warm"); });
    EXPECT_NE(msg.find("not a finite number"), std::string::npos) << msg;
    EXPECT_THROW(s.set("temperature", "nan"), Error);
    EXPECT_THROW(s.set("seed", "-1"), Error);
    EXPECT_THROW(s.set("no_equals_sign"), Error);
    EXPECT_THROW(s.set("=3"), Error);
    EXPECT_THROW(s.set(".eps", "3"), Error);
    EXPECT_EQ(s.steps, DecodeSettings{}.steps);  // failed sets change nothing
}

TEST(DecodeSettings, DefaultsAreValidForBothFamilies) {
    DecodeSettings s;
    s.gen_length = 64;
    s.steps = 64;
    EXPECT_FALSE(has_errors(validate(s, test::fake_config(Family::Llada), 10)));
    EXPECT_FALSE(has_errors(validate(s, test::fake_config(Family::Dream), 10)));
}

// A canvas whose logits would not fit in memory is refused before the run, with the numbers
// (Dream's vocabulary at gen_length 2^20 needs 638 GB per step; the system would kill the run).
TEST(DecodeSettings, LogitsThatCannotFitAreRefusedUpFront) {
    auto c = test::fake_config(Family::Dream);
    c.vocab_size = 152064;
    c.max_seq_len = 1 << 22;
    DecodeSettings s;
    s.sampler = SamplerFamily::Dream;
    s.gen_length = s.steps = 1 << 20;
    s.track_kl = TrackKl::Off;
    EXPECT_TRUE(mentions(validate(s, c, 10), kError, "gen_length", "GB for one step's logits"));
    s.gen_length = s.steps = 256;
    EXPECT_FALSE(mentions(validate(s, c, 10), kError, "gen_length", "GB for one step's logits"));
}

// Past the sequence length its training used (recorded by the embedded models), a canvas is
// allowed but warned about, with the gen length that stays within it.
TEST(DecodeSettings, ACanvasPastTheTrainedLengthIsAWarning) {
    auto c = test::fake_config(Family::Llada);
    c.max_seq_len = 1024;
    c.trained_seq_len = 320;
    DecodeSettings s;
    s.gen_length = s.steps = 280;
    EXPECT_FALSE(mentions(validate(s, c, 40), kWarning, "gen_length", "trained on sequences"));
    s.gen_length = s.steps = 960;
    const auto issues = validate(s, c, 40);
    EXPECT_FALSE(has_errors(issues));
    EXPECT_TRUE(mentions(issues, kWarning, "gen_length", "at most 320 tokens"));
    EXPECT_TRUE(mentions(issues, kWarning, "gen_length", "gen_length 280 or less"));
    c.trained_seq_len = 0;  // not recorded (published checkpoints): nothing to say
    EXPECT_FALSE(mentions(validate(s, c, 40), kWarning, "gen_length", "trained on sequences"));
}

TEST(DecodeSettings, BlockAndStepDivisibility) {
    const auto c = test::fake_config();
    DecodeSettings s;
    s.gen_length = 100;
    s.block_length = 32;
    s.steps = 100;
    EXPECT_TRUE(mentions(validate(s, c, 8), kError, "block_length", "not a multiple of block_length 32"));
    s.gen_length = 96;  // 3 blocks
    s.steps = 64;
    auto issues = validate(s, c, 8);
    EXPECT_TRUE(mentions(issues, kError, "steps", "not a multiple of the number of blocks 3"));
    EXPECT_NE(format_issues(issues).find("error: "), std::string::npos);
    s.steps = 96;
    EXPECT_FALSE(has_errors(validate(s, c, 8)));
    s.block_length = 128;
    EXPECT_TRUE(mentions(validate(s, c, 8), kError, "block_length", "larger than gen_length 96"));
    s.block_length = 0;  // one block
    EXPECT_FALSE(has_errors(validate(s, c, 8)));
}

TEST(DecodeSettings, MoreStepsThanTokensPerBlockIsAWarning) {
    const auto c = test::fake_config();
    DecodeSettings s;
    s.gen_length = 32;
    s.block_length = 8;
    s.steps = 48;  // 12 per block of 8
    const auto issues = validate(s, c, 8);
    EXPECT_FALSE(has_errors(issues));
    EXPECT_TRUE(mentions(issues, kWarning, "steps", "the last 4 steps of every block reveal nothing"));
}

TEST(DecodeSettings, ContextOverflowIsAnError) {
    auto c = test::fake_config();
    c.max_seq_len = 100;
    DecodeSettings s;
    s.gen_length = 96;
    s.steps = 96;
    EXPECT_TRUE(mentions(validate(s, c, 8), kError, "gen_length", "exceeds the model's context of 100"));
    EXPECT_FALSE(has_errors(validate(s, c, 4)));
}

TEST(DecodeSettings, SamplingRanges) {
    const auto c = test::fake_config();
    DecodeSettings s;
    s.gen_length = s.steps = 16;
    s.temperature = -0.1;
    EXPECT_TRUE(mentions(validate(s, c, 4), kError, "temperature", ">= 0"));
    s.temperature = 0.5;
    for (double p : {0.0, -0.5, 1.5}) {
        s.top_p = p;
        EXPECT_TRUE(mentions(validate(s, c, 4), kError, "top_p", "(0, 1]")) << p;
    }
    s.top_p = 1.0;
    s.cfg_scale = -1;
    EXPECT_TRUE(mentions(validate(s, c, 4), kError, "cfg_scale", ">= 0"));
    s.cfg_scale = 1e300;  // once accepted, then NaN logits in the run
    EXPECT_TRUE(mentions(validate(s, c, 4), kError, "cfg_scale", "over the limit of 1000"));
    s.cfg_scale = 0;
    s.temperature = 0;
    s.top_k = 5;
    EXPECT_TRUE(mentions(validate(s, c, 4), kWarning, "temperature", "no effect"));
}

TEST(DecodeSettings, ModelLevelErrors) {
    DecodeSettings s;
    s.gen_length = s.steps = 16;
    EXPECT_TRUE(mentions(validate(s, test::fake_config(Family::Qwen2), 4), kError, "", "autoregressive"));
    auto c = test::fake_config();
    EXPECT_TRUE(mentions(validate(s, c, 0), kError, "", "prompt is empty"));
    c.eos_token_id = -1;
    s.eos = EosPolicy::LogitsEosInf;
    EXPECT_TRUE(mentions(validate(s, c, 4), kError, "eos", "needs an EOS token"));
}

TEST(DecodeSettings, DreamSpecificChecks) {
    const auto c = test::fake_config(Family::Dream);
    DecodeSettings s;
    s.gen_length = 64;
    s.steps = 32;
    s.block_length = 16;
    s.eps = 0;
    auto issues = validate(s, c, 4);
    EXPECT_TRUE(mentions(issues, kError, "eps", "(0, 1)"));
    EXPECT_TRUE(mentions(issues, kWarning, "block_length", "no blocks"));
    s.eps = 1e-3;
    s.alg_temp = 0.5;
    EXPECT_TRUE(mentions(validate(s, c, 4), kWarning, "alg_temp", "0.2"));
    s.alg_temp = 0;
    // One step per token is Dream's usual setting: no warning about idle steps (its schedule
    // leaves only the first idle). More steps than tokens: the idle ones, counted.
    s.block_length = 0;
    s.steps = 64;
    EXPECT_FALSE(mentions(validate(s, c, 4), kWarning, "steps", ""));
    s.steps = 72;
    EXPECT_TRUE(mentions(validate(s, c, 4), kWarning, "steps", "72 steps for 64 tokens: Dream's schedule reveals nothing at 9 of them"));
    s.alg = DreamAlg::Origin;
    EXPECT_TRUE(mentions(validate(s, c, 4), kWarning, "steps", "at least 8 steps will reveal nothing"));
    s.steps = 32;
    EXPECT_EQ(effective_block_length(s, c), 64);
    EXPECT_EQ(effective_sampler(s, c), SamplerFamily::Dream);
    EXPECT_EQ(effective_confidence(s, c), ConfidenceSource::Processed);
    EXPECT_EQ(effective_confidence(s, test::fake_config(Family::Llada)), ConfidenceSource::Raw);
}

TEST(DecodeSettings, TrackKlAutoFollowsTheMemoryBudget) {
    auto c = test::fake_config();
    DecodeSettings s;
    s.gen_length = 256;
    EXPECT_TRUE(effective_track_kl(s, c, 64));
    c.vocab_size = 126464;  // LLaDA: 126464 * 320 * 4 B = 162 MB
    EXPECT_TRUE(effective_track_kl(s, c, 64));
    s.gen_length = 1024;    // 126464 * 1088 * 4 B = 550 MB
    EXPECT_FALSE(effective_track_kl(s, c, 64));
    s.track_kl = TrackKl::On;
    EXPECT_TRUE(effective_track_kl(s, c, 64));
}

}  // namespace
}  // namespace dlm
