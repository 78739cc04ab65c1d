// Guided Diffusion: the diffusion model drafts every mask, an AR
// guider (a random qwen2 checkpoint here) accepts the longest agreeing prefix, at least one token
// per step. The diffusion side is the scripted backend (its drafts are known), the guider is the
// real CPU backend over a random causal model sharing the 32-token fake vocabulary.
#include <gtest/gtest.h>

#include <memory>
#include <numeric>
#include <vector>

#include "decode/ar_guider.h"
#include "decode/decode_session.h"
#include "decode/flops.h"
#include "decode/guided_unmask.h"
#include "decode/guider_cache.h"
#include "decode/strategy.h"
#include "model/hf_cache.h"
#include "model/checkpoint.h"
#include "model/model_config_writer.h"
#include "support/safetensors_writer.h"
#include "support/decode_fakes.h"
#include "support/random_checkpoint.h"
#include "util/error.h"

namespace dlm {
namespace {

using test::fake_config;
using test::FakeTokenizer;
using test::ScriptedBackend;

struct Guider {
    test::ScratchDir dir{"dlm-guided-test"};
    test::RandomCheckpoint ck;
};

// A random qwen2 guider over the fake vocabulary. With `forced`, its argmax is always EoT (29) or
// EOS (30), tokens the scripted drafts never contain: the final norm keeps one hidden dimension,
// and the (tied) embedding rows of 29 / 30 are +-100 there, every other row at most ~1. Whatever
// the sign of that dimension, one of the two wins, so an argmax guider agrees with nothing.
std::unique_ptr<Guider> make_guider(bool forced) {
    auto g = std::make_unique<Guider>();
    test::RandomCheckpointOptions o;
    o.vocab_size = 32;
    o.seed = 11;
    g->ck = test::write_random_checkpoint(g->dir.path(), Family::Qwen2, o);
    if (forced) {
        auto tensors = g->ck.tensors;
        auto& norm = tensors.at("model.norm.weight").values;
        std::fill(norm.begin(), norm.end(), 0.0f);
        norm[0] = 1.0f;
        auto& emb = tensors.at("model.embed_tokens.weight");
        const std::size_t d = static_cast<std::size_t>(emb.shape[1]);
        emb.values[29 * d] = 100.0f;
        emb.values[30 * d] = -100.0f;
        test::write_safetensors(g->ck.weights_file, tensors);
    }
    return g;
}

std::unique_ptr<ArGuider> open_guider(const Guider& g, GuideMatch match, int k = 5) {
    ArGuiderOptions o;
    o.match = match;
    o.top_k = k;
    o.threads = 1;
    Checkpoint ck{g.ck.dir, test::load_random_checkpoint(g.ck), nullptr};
    return std::make_unique<ArGuider>(std::move(ck), nullptr, o);
}

// Drives GuidedUnmask the way the session does, with statistics whose sampled token is the
// scripted draft (row r prefers (r * 7 + 3) % 28), until nothing is masked.
struct GuidedRun {
    int steps = 0;
    std::vector<int> commits_per_step;
    std::vector<int> rows_per_step;
    double flops = 0;
    std::vector<int32_t> canvas;
};

GuidedRun run_guided(std::unique_ptr<ArGuider> guider, int prompt_len, int gen, bool eos_fill = false) {
    const ModelConfig c = fake_config();
    std::vector<int32_t> prompt;
    for (int i = 0; i < prompt_len; ++i) prompt.push_back((i * 5 + 1) % 28);
    DecodeCanvas cv(prompt, gen, c.mask_token_id);
    GuidedUnmaskOptions go;
    go.gen_length = gen;
    go.eos_fill = eos_fill;
    go.eos = c.eos_token_id;
    go.eot = c.eot_token_id;
    GuidedUnmask policy(std::move(guider), go);
    GuidedRun r;
    std::vector<RowStats> stats(static_cast<std::size_t>(cv.size()));
    std::vector<const RowStats*> by_pos(static_cast<std::size_t>(cv.size()), nullptr);
    while (!policy.done(r.steps, cv)) {
        cv.begin_step();
        for (int p = cv.prompt_length(); p < cv.size(); ++p) {
            RowStats& st = stats[static_cast<std::size_t>(p)];
            st.position = p;
            st.argmax = st.sampled = (p * 7 + 3) % 28;
            st.p_max = st.sampled_p_raw = 0.5f;
            by_pos[static_cast<std::size_t>(p)] = &st;
        }
        const StepContext ctx{r.steps, 0, cv, by_pos};
        const auto commits = policy.choose(ctx);
        for (const Commit& cm : commits) cv.unmask(cm.pos, cm.token, r.steps);
        r.commits_per_step.push_back(static_cast<int>(commits.size()));
        r.rows_per_step.push_back(policy.last().rows);
        r.flops += policy.guider_flops();
        ++r.steps;
    }
    r.canvas.assign(cv.tokens().begin(), cv.tokens().end());
    return r;
}

// A guider whose matching rule accepts everything (top-k with k = the whole vocabulary) commits
// the whole draft in one step, through the chunks.
TEST(StrategyGuided, AgreeingGuiderCommitsTheWholeDraftInOneStep) {
    auto g = make_guider(false);
    auto guider = open_guider(*g, GuideMatch::TopK, 32);
    const GuidedRun r = run_guided(std::move(guider), 6, 40);
    ASSERT_EQ(r.steps, 1);
    EXPECT_EQ(r.commits_per_step[0], 40);
    for (int p = 6; p < 46; ++p) EXPECT_EQ(r.canvas[static_cast<std::size_t>(p)], (p * 7 + 3) % 28);
    // Two chunks of 32 and 8 draft tokens: rows 0..44 (the last draft token predicts nothing).
    EXPECT_EQ(r.rows_per_step[0], 45);
    std::vector<int32_t> rows(45);
    std::iota(rows.begin(), rows.end(), 0);
    ModelConfig qc = g->ck.config;
    EXPECT_DOUBLE_EQ(r.flops, causal_flops(qc, std::span<const int32_t>(rows).first(37), 32) +
                                  causal_flops(qc, std::span<const int32_t>(rows).subspan(37), 8));
}

// A guider whose argmax is forced to tokens the drafts never contain agrees with nothing: exactly
// one token (the diffusion model's draft) per step. Its K/V cache keeps the committed prefix, so
// each later step computes only the first draft chunk (chunk = 4 here), never the prompt again.
TEST(StrategyGuided, DisagreeingGuiderCommitsOneTokenPerStep) {
    auto g = make_guider(true);
    ArGuiderOptions o;
    o.match = GuideMatch::Argmax;
    o.chunk = 4;
    o.threads = 1;
    Checkpoint ck{g->ck.dir, test::load_random_checkpoint(g->ck), nullptr};
    const GuidedRun r = run_guided(std::make_unique<ArGuider>(std::move(ck), nullptr, o), 10, 12);
    ASSERT_EQ(r.steps, 12);
    for (int c : r.commits_per_step) EXPECT_EQ(c, 1);
    for (int p = 10; p < 22; ++p) EXPECT_EQ(r.canvas[static_cast<std::size_t>(p)], (p * 7 + 3) % 28);
    EXPECT_EQ(r.rows_per_step[0], 10 + 3);  // prompt + the first chunk's rows
    for (int s = 1; s < 12; ++s) EXPECT_LE(r.rows_per_step[static_cast<std::size_t>(s)], 4) << "step " << s;
    // The same guider with a rule that accepts everything (ratio 0) agrees with the same drafts.
    Checkpoint ck2{g->ck.dir, test::load_random_checkpoint(g->ck), nullptr};
    o.match = GuideMatch::Ratio;
    o.ratio = 0.0;
    EXPECT_EQ(run_guided(std::make_unique<ArGuider>(std::move(ck2), nullptr, o), 10, 12).steps, 1);
}

TEST(StrategyGuided, MatchingRules) {
    const std::vector<float> logits = {0.0f, 2.0f, 1.0f, 2.0f, -1.0f};
    ArGuiderOptions o;
    o.match = GuideMatch::Argmax;
    EXPECT_TRUE(ArGuider::accepts(logits, 1, o));
    EXPECT_TRUE(ArGuider::accepts(logits, 3, o));  // a tie with the maximum agrees
    EXPECT_FALSE(ArGuider::accepts(logits, 2, o));
    EXPECT_FALSE(ArGuider::accepts(logits, 7, o));  // outside the guider's vocabulary
    o.match = GuideMatch::TopK;
    o.top_k = 2;
    EXPECT_TRUE(ArGuider::accepts(logits, 3, o));
    EXPECT_FALSE(ArGuider::accepts(logits, 2, o));  // two tokens rank above it
    o.top_k = 3;
    EXPECT_TRUE(ArGuider::accepts(logits, 2, o));
    o.match = GuideMatch::Ratio;
    o.ratio = 0.3;  // p(2)/p(max) = e^-1 = 0.368
    EXPECT_TRUE(ArGuider::accepts(logits, 2, o));
    o.ratio = 0.4;
    EXPECT_FALSE(ArGuider::accepts(logits, 2, o));
}

TEST(StrategyGuided, EosCommitFillsTheRest) {
    auto g = make_guider(false);
    ArGuiderOptions o;
    o.match = GuideMatch::TopK;
    o.top_k = 32;
    o.threads = 1;
    const ModelConfig c = fake_config();
    DecodeCanvas cv({1, 2, 3}, 6, c.mask_token_id);
    GuidedUnmaskOptions go;
    go.gen_length = 6;
    go.eos = c.eos_token_id;
    go.eot = c.eot_token_id;
    auto gptr = std::make_unique<ArGuider>(Checkpoint{g->ck.dir, test::load_random_checkpoint(g->ck), nullptr}, nullptr, o);
    GuidedUnmask policy(std::move(gptr), go);
    std::vector<RowStats> st(9);
    std::vector<const RowStats*> by(9, nullptr);
    for (int p = 3; p < 9; ++p) {
        st[static_cast<std::size_t>(p)].sampled = p == 5 ? c.eos_token_id : 4;
        by[static_cast<std::size_t>(p)] = &st[static_cast<std::size_t>(p)];
    }
    const auto commits = policy.choose(StepContext{0, 0, cv, by});
    ASSERT_EQ(commits.size(), 6u);
    EXPECT_EQ(commits[2].token, c.eos_token_id);
    for (std::size_t i = 3; i < 6; ++i) EXPECT_EQ(commits[i].token, c.eos_token_id);  // filled, not drafted 4
    // The step's counters say why each commit was made: three agreed (the EOS among them), three filled.
    std::map<std::string, double> counters;
    policy.add_counters(counters);
    EXPECT_EQ(counters.at("guider_agreed_commits"), 3);
    EXPECT_EQ(counters.at("guider_no_agreement"), 0);
    EXPECT_EQ(counters.at("guider_end_fill"), 3);
    for (int i = 0; i < 3; ++i) EXPECT_EQ(guided_commit_reason(counters, i), GuidedCommitReason::Agreed) << i;
    for (int i = 3; i < 6; ++i) EXPECT_EQ(guided_commit_reason(counters, i), GuidedCommitReason::EndFill) << i;
    EXPECT_FALSE(guided_commit_reason(counters, 6).has_value());
}

// Where the guider agrees with nothing, the one commit is the diffusion model's own draft token,
// and the counters say so.
TEST(StrategyGuided, CommitReasonsWhenTheGuiderAgreesWithNothing) {
    auto g = make_guider(true);
    ArGuiderOptions o;
    o.match = GuideMatch::Argmax;
    o.threads = 1;
    const ModelConfig c = fake_config();
    GuidedUnmaskOptions go;
    go.gen_length = 5;
    go.eos = c.eos_token_id;
    go.eot = c.eot_token_id;
    GuidedUnmask policy(std::make_unique<ArGuider>(Checkpoint{g->ck.dir, test::load_random_checkpoint(g->ck), nullptr},
                                                   nullptr, o),
                        go);
    DecodeCanvas cv({1, 2, 3}, 5, c.mask_token_id);
    std::vector<RowStats> st(8);
    std::vector<const RowStats*> by(8, nullptr);
    for (int p = 3; p < 8; ++p) {
        st[static_cast<std::size_t>(p)].sampled = 4;
        by[static_cast<std::size_t>(p)] = &st[static_cast<std::size_t>(p)];
    }
    const auto commits = policy.choose(StepContext{0, 0, cv, by});
    ASSERT_EQ(commits.size(), 1u);
    std::map<std::string, double> counters;
    policy.add_counters(counters);
    EXPECT_EQ(counters.at("guider_accepted"), 0);
    EXPECT_EQ(counters.at("guider_no_agreement"), 1);
    EXPECT_EQ(counters.at("guider_agreed_commits"), 0);
    EXPECT_EQ(counters.at("guider_end_fill"), 0);
    EXPECT_EQ(guided_commit_reason(counters, 0), GuidedCommitReason::NoAgreement);
    EXPECT_FALSE(guided_commit_reason(counters, 1).has_value());
}

TEST(StrategyGuided, CommitReasonsFromAStepsCounters) {
    // An end of text drafted where the guider agreed with nothing: it goes in alone, the fill after it.
    const std::map<std::string, double> alone_then_fill = {
        {"guider_agreed_commits", 0}, {"guider_no_agreement", 1}, {"guider_end_fill", 4}};
    EXPECT_EQ(guided_commit_reason(alone_then_fill, 0), GuidedCommitReason::NoAgreement);
    for (int i = 1; i < 5; ++i) EXPECT_EQ(guided_commit_reason(alone_then_fill, i), GuidedCommitReason::EndFill) << i;
    EXPECT_FALSE(guided_commit_reason(alone_then_fill, 5).has_value());
    EXPECT_FALSE(guided_commit_reason(alone_then_fill, -1).has_value());
    // Another strategy's counters, or a trace written before these counters, give no reason.
    EXPECT_FALSE(guided_commit_reason({{"remasks", 2}}, 0).has_value());
    EXPECT_FALSE(guided_commit_reason({{"guider_accepted", 3}, {"guider_drafted", 9}}, 0).has_value());
}

TEST(StrategyGuided, RegistryFindsTheGuiderAndRefusesBadOnes) {
    const ModelConfig c = fake_config();
    DecodeSettings s;
    s.strategy = "guided";
    s.gen_length = 16;
    s.steps = 16;
    EXPECT_THROW(make_strategy(s, c, 4), Error);  // no guider and no model folder to look next to
    s.params["guided.guider"] = "/nonexistent/guider";
    EXPECT_THROW(make_strategy(s, c, 4), Error);
    // A folder that is no checkpoint: said as the guider's failure, with the loader's reason.
    test::ScratchDir empty{"dlm-not-a-guider"};
    s.params["guided.guider"] = empty.path().string();
    try {
        make_strategy(s, c, 4);
        ADD_FAILURE() << "a folder without config.json is no guider";
    } catch (const Error& e) {
        const std::string m = e.what();
        EXPECT_EQ(m.rfind("guided: the guider does not load: ", 0), 0u) << m;
        EXPECT_NE(m.find("config.json"), std::string::npos) << m;
    }
    s.params["guided.match"] = "best";
    EXPECT_THROW(make_strategy(s, c, 4), Error);
    // The embedded pair: tiny-mdlm's default guider is the tiny-ar next to it (the guider cache a
    // loaded model owns), with the very same tokenizer, read from disk once for all runs.
    const std::filesystem::path mdlm = std::filesystem::path(DLM_SOURCE_DIR) / "resources/models/tiny-mdlm";
    ASSERT_TRUE(std::filesystem::exists(mdlm / "config.json") &&
                std::filesystem::exists(mdlm.parent_path() / "tiny-ar" / "config.json"))
        << "the embedded models tiny-mdlm and tiny-ar ship with the repository; one is missing";
    const Checkpoint dlm = load_checkpoint(mdlm);
    GuiderCache guiders(mdlm.parent_path());
    DecodeSettings e;
    e.strategy = "guided";
    e.gen_length = 16;
    e.steps = 16;
    for (int run = 0; run < 2; ++run) {
        Strategy st = make_strategy(e, dlm.config(), 4, StrategyEnv{dlm.tokenizer.get(), &guiders});
        const auto* gu = dynamic_cast<const GuidedUnmask*>(st.unmask.get());
        ASSERT_NE(gu, nullptr);
        EXPECT_TRUE(gu->guider().same_vocabulary());
        EXPECT_TRUE(gu->guider().bridge_warning().empty());
        EXPECT_EQ(gu->guider().dir().filename(), "tiny-ar");
        EXPECT_TRUE(st.issues.empty());  // the embedded pairing needs no word
    }
    EXPECT_EQ(guiders.loads(), 1);
    // A diffusion model is not a guider.
    e.params["guided.guider"] = mdlm.string();
    EXPECT_THROW(make_strategy(e, dlm.config(), 4, StrategyEnv{dlm.tokenizer.get(), &guiders}),
                 Error);
}

// A run that names no guider uses tiny-ar beside the model's folder, else the smallest causal
// model there (Qwen2.5-0.5B beside Dream-7B): folders of other families, unreadable configs and
// folders without one are passed over, and a folder with none says where it looked.
TEST(StrategyGuided, TheDefaultGuiderIsFoundBesideTheModel) {
    test::ScratchDir models{"dlm-guider-search"};
    auto folder_with = [&](const std::string& name, const std::string& config_json) {
        std::filesystem::create_directories(models / name);
        test::write_file(models / name / "config.json", config_json);
    };
    auto qwen2 = [](int layers) {
        ModelConfig c = fake_config();
        c.family = Family::Qwen2;
        c.architecture = "Qwen2ForCausalLM";
        c.n_kv_heads = 1;
        c.n_layers = layers;
        c.bidirectional = false;
        return model_config_json(c);
    };
    folder_with("Dream-v0-Instruct-7B", model_config_json(fake_config(Family::Dream)));
    EXPECT_EQ(default_guider_folder(models.path()), std::filesystem::path());
    GuiderCache none_there(models.path());
    try {
        none_there.get();
        ADD_FAILURE() << "a folder without a causal model has no default guider";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find(models.path().string()), std::string::npos) << e.what();
    }
    folder_with("Qwen2.5-1.5B", qwen2(4));
    folder_with("Qwen2.5-0.5B", qwen2(2));
    folder_with("broken", "{ not json");
    std::filesystem::create_directories(models / "notes");
    EXPECT_EQ(default_guider_folder(models.path()), (models / "Qwen2.5-0.5B").lexically_normal());
    EXPECT_EQ(GuiderCache(models.path()).default_dir(), (models / "Qwen2.5-0.5B").lexically_normal());
    std::filesystem::create_directories(models / "tiny-ar");  // the embedded guider comes first
    EXPECT_EQ(default_guider_folder(models.path()), (models / "tiny-ar").lexically_normal());
    EXPECT_EQ(default_guider_folder({}), std::filesystem::path());
    // A model in a Hugging Face cache: the guider is another repository's snapshot in that cache.
    const std::filesystem::path hub = models / "hub";
    auto snapshot = [&](const std::string& repo, const std::string& config_json) {
        const auto dir = hub / repo / "snapshots" / "0123abcd";
        std::filesystem::create_directories(dir);
        test::write_file(dir / "config.json", config_json);
        return dir;
    };
    const auto dream = snapshot("models--Dream-org--Dream-v0-Instruct-7B", model_config_json(fake_config(Family::Dream)));
    snapshot("models--Qwen--Qwen2.5-7B-Instruct", qwen2(4));
    const auto small = snapshot("models--Qwen--Qwen2.5-0.5B-Instruct", qwen2(2));
    std::filesystem::create_directories(hub / ".locks");
    EXPECT_EQ(default_guider_folder(fellow_models_folder(dream)), small.lexically_normal());
    // A guider picked among the user's folders is named in a warning (tiny-ar, the embedded
    // pairing, is not: RegistryFindsTheGuiderAndRefusesBadOnes builds it without one).
    const std::filesystem::path embedded = std::filesystem::path(DLM_SOURCE_DIR) / "resources/models";
    for (const char* gone : {"tiny-ar", "Qwen2.5-0.5B", "Qwen2.5-1.5B"}) std::filesystem::remove_all(models / gone);
    std::filesystem::copy(embedded / "tiny-ar", models / "small-causal");
    const Checkpoint dlm = load_checkpoint(embedded / "tiny-mdlm");
    GuiderCache found(models.path());
    DecodeSettings s;
    s.strategy = "guided";
    s.gen_length = 16;
    s.steps = 16;
    const Strategy st = make_strategy(s, dlm.config(), 4, StrategyEnv{dlm.tokenizer.get(), &found});
    ASSERT_EQ(st.issues.size(), 1u);
    EXPECT_EQ(st.issues[0].key, "guided.guider");
    EXPECT_NE(st.issues[0].message.find("small-causal"), std::string::npos) << st.issues[0].message;
}

}  // namespace
}  // namespace dlm
