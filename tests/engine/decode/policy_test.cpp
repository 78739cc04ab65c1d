// The reference unmask policies on hand-made statistics: which positions commit, in which order.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "decode/commit_order.h"
#include "decode/decode_canvas.h"
#include "decode/dream_unmask.h"
#include "decode/llada_unmask.h"
#include "decode/settings_schema.h"
#include "decode/strategy.h"
#include "support/decode_fakes.h"
#include "util/error.h"

namespace dlm {
namespace {

constexpr int32_t kMask = 31, kEos = 30, kEot = 29;

// Statistics for every generated position of a canvas; confidence[i] for generated position i.
struct Stats {
    std::vector<RowStats> rows;
    std::vector<const RowStats*> by_pos;
    Stats(const DecodeCanvas& cv, const std::vector<float>& conf, const std::vector<int32_t>& tokens) {
        rows.resize(static_cast<std::size_t>(cv.gen_length()));
        by_pos.assign(static_cast<std::size_t>(cv.size()), nullptr);
        for (int i = 0; i < cv.gen_length(); ++i) {
            RowStats& s = rows[static_cast<std::size_t>(i)];
            s.position = cv.prompt_length() + i;
            s.sampled = tokens[static_cast<std::size_t>(i)];
            s.sampled_p_raw = conf[static_cast<std::size_t>(i)];
            s.sampled_p_proc = 1.0f - conf[static_cast<std::size_t>(i)];  // deliberately the reverse order
            s.p_max = conf[static_cast<std::size_t>(i)];
            s.p_second = conf[static_cast<std::size_t>(i)] / 2;
            s.p_max_proc = s.sampled_p_proc;
            s.p_second_proc = 0;
            s.entropy = 1.0f - conf[static_cast<std::size_t>(i)];
            s.entropy_proc = conf[static_cast<std::size_t>(i)];
            by_pos[static_cast<std::size_t>(s.position)] = &s;
        }
    }
    StepContext ctx(const DecodeCanvas& cv, int step, uint64_t seed = 0) const { return {step, seed, cv, by_pos}; }
};

std::vector<int32_t> positions(const std::vector<Commit>& c) {
    std::vector<int32_t> p;
    for (const auto& x : c) p.push_back(x.pos);
    std::sort(p.begin(), p.end());
    return p;
}

LladaUnmaskOptions llada_opts(int prompt, int gen, int block, int steps) {
    LladaUnmaskOptions o;
    o.prompt_length = prompt;
    o.gen_length = gen;
    o.block_length = block;
    o.steps = steps;
    return o;
}

TEST(DecodePolicy, TakeBestOrdersDeferredLastAndTiesLeftmost) {
    std::vector<RankedCandidate> c{{5, 1, 0.5, false}, {3, 2, 0.9, true}, {7, 3, 0.5, false}, {4, 4, 0.7, false}};
    auto best = take_best(c, 3);
    ASSERT_EQ(best.size(), 3u);
    EXPECT_EQ(best[0].pos, 4);
    EXPECT_EQ(best[1].pos, 5);  // tie at 0.5: the lower position first
    EXPECT_EQ(best[2].pos, 7);
    EXPECT_EQ(take_best(c, 10).size(), 4u);
    EXPECT_TRUE(take_best(c, 0).empty());
}

TEST(DecodePolicy, LladaCommitsTheMostConfidentInTheCurrentBlockOnly) {
    DecodeCanvas cv({28, 1, 2}, 8, kMask);  // generated positions 3..10, blocks [3,7) and [7,11)
    LladaUnmask u(llada_opts(3, 8, 4, 4));   // 2 steps per block: 2 + 2 reveals
    EXPECT_EQ(u.num_blocks(), 2);
    EXPECT_EQ(u.steps_per_block(), 2);
    // The second block is far more confident, yet must wait for its turn.
    Stats st(cv, {0.1f, 0.6f, 0.3f, 0.5f, 0.99f, 0.98f, 0.97f, 0.96f}, {1, 2, 3, 4, 5, 6, 7, 8});
    auto c = u.choose(st.ctx(cv, 0));
    EXPECT_EQ(positions(c), (std::vector<int32_t>{4, 6}));
    for (const auto& x : c) cv.unmask(x.pos, x.token, 0);
    c = u.choose(st.ctx(cv, 1));
    EXPECT_EQ(positions(c), (std::vector<int32_t>{3, 5}));
    for (const auto& x : c) cv.unmask(x.pos, x.token, 1);
    EXPECT_EQ(u.block_of_step(2), 1);
    c = u.choose(st.ctx(cv, 2));
    EXPECT_EQ(positions(c), (std::vector<int32_t>{7, 8}));
    EXPECT_EQ(c[0].token, 5);
}

TEST(DecodePolicy, LladaProcessedConfidenceSourceReversesTheOrder) {
    DecodeCanvas cv({28}, 4, kMask);
    auto o = llada_opts(1, 4, 4, 4);
    o.source = ConfidenceSource::Processed;
    LladaUnmask u(o);
    Stats st(cv, {0.1f, 0.6f, 0.3f, 0.5f}, {1, 2, 3, 4});
    EXPECT_EQ(positions(u.choose(st.ctx(cv, 0))), std::vector<int32_t>{1});  // 1 - 0.1 is the largest
}

TEST(DecodePolicy, LladaZeroRevealStepsWhenStepsExceedMasks) {
    DecodeCanvas cv({28}, 2, kMask);
    LladaUnmask u(llada_opts(1, 2, 2, 4));
    Stats st(cv, {0.5f, 0.4f}, {1, 2});
    std::vector<std::size_t> counts;
    for (int step = 0; step < 4; ++step) {
        auto c = u.choose(st.ctx(cv, step));
        counts.push_back(c.size());
        for (const auto& x : c) cv.unmask(x.pos, x.token, step);
    }
    EXPECT_EQ(counts, (std::vector<std::size_t>{1, 1, 0, 0}));
}

TEST(DecodePolicy, LladaDefersEosAndEotToTheEndOfTheBlock) {
    DecodeCanvas cv({28}, 8, kMask);
    auto o = llada_opts(1, 8, 4, 8);  // one reveal per step
    o.eos = {true, kEos, kEot};
    LladaUnmask u(o);
    // Block 0 samples EOS and EoT with the highest confidence; block 1 is never touched early.
    Stats st(cv, {0.9f, 0.95f, 0.2f, 0.3f, 0.99f, 0.99f, 0.99f, 0.99f}, {kEos, kEot, 3, 4, kEos, 6, 7, 8});
    std::vector<int32_t> order;
    for (int step = 0; step < 4; ++step) {
        auto c = u.choose(st.ctx(cv, step));
        ASSERT_EQ(c.size(), 1u);
        order.push_back(c[0].pos);
        cv.unmask(c[0].pos, c[0].token, step);
    }
    EXPECT_EQ(order, (std::vector<int32_t>{4, 3, 2, 1}));  // normal tokens first, then EoT (0.95), EOS
    // Without the policy the most confident (EoT, EOS) go first.
    DecodeCanvas cv2({28}, 8, kMask);
    LladaUnmask plain(llada_opts(1, 8, 4, 8));
    Stats st2(cv2, {0.9f, 0.95f, 0.2f, 0.3f, 0.99f, 0.99f, 0.99f, 0.99f}, {kEos, kEot, 3, 4, kEos, 6, 7, 8});
    EXPECT_EQ(plain.choose(st2.ctx(cv2, 0))[0].pos, 2);
}

TEST(DecodePolicy, LladaRandomRemaskingIgnoresConfidenceAndFollowsTheSeed) {
    auto run = [](uint64_t seed) {
        DecodeCanvas cv({28}, 16, kMask);
        auto o = llada_opts(1, 16, 16, 4);
        o.remasking = Remasking::Random;
        LladaUnmask u(o);
        std::vector<float> conf(16);
        for (int i = 0; i < 16; ++i) conf[static_cast<std::size_t>(i)] = 1.0f - 0.05f * static_cast<float>(i);
        Stats st(cv, conf, std::vector<int32_t>(16, 5));
        return positions(u.choose(st.ctx(cv, 0, seed)));
    };
    EXPECT_EQ(run(1).size(), 4u);
    EXPECT_EQ(run(1), run(1));
    bool differs = false;
    for (uint64_t s = 2; s < 6; ++s) differs |= run(s) != run(1);
    EXPECT_TRUE(differs);
    // Not simply the four most confident (positions 1..4) for every seed.
    bool not_topk = false;
    for (uint64_t s = 1; s < 6; ++s) not_topk |= run(s) != std::vector<int32_t>{1, 2, 3, 4};
    EXPECT_TRUE(not_topk);
}

TEST(DecodePolicy, LladaRejectsInconsistentOptions) {
    EXPECT_THROW(LladaUnmask(llada_opts(1, 10, 4, 10)), Error);
    EXPECT_THROW(LladaUnmask(llada_opts(1, 8, 4, 5)), Error);
}

DreamUnmaskOptions dream_opts(int prompt, int gen, int steps, DreamAlg alg) {
    DreamUnmaskOptions o;
    o.prompt_length = prompt;
    o.gen_length = gen;
    o.steps = steps;
    o.alg = alg;
    return o;
}

TEST(DecodePolicy, DreamMeasuresPickDifferentPositions) {
    const std::vector<float> conf{0.2f, 0.9f, 0.5f, 0.7f};
    auto first = [&](DreamAlg alg, ConfidenceSource src) {
        DecodeCanvas cv({28}, 4, kMask);
        auto o = dream_opts(1, 4, 2, alg);  // step 0 reveals int(4 * (1 - 0.5005)) = 1
        o.source = src;
        DreamUnmask u(o);
        Stats st(cv, conf, {1, 2, 3, 4});
        auto c = u.choose(st.ctx(cv, 0));
        EXPECT_EQ(c.size(), 1u);
        return c.empty() ? -1 : c[0].pos;
    };
    EXPECT_EQ(first(DreamAlg::MaskgitPlus, ConfidenceSource::Raw), 2);         // max raw p
    EXPECT_EQ(first(DreamAlg::MaskgitPlus, ConfidenceSource::Processed), 1);   // max 1 - p
    EXPECT_EQ(first(DreamAlg::TopkMargin, ConfidenceSource::Raw), 2);          // p/2 margin
    EXPECT_EQ(first(DreamAlg::Entropy, ConfidenceSource::Raw), 2);             // lowest 1 - p entropy
    EXPECT_EQ(first(DreamAlg::Entropy, ConfidenceSource::Processed), 1);       // lowest entropy_proc = p
}

TEST(DecodePolicy, DreamLastStepRevealsEverything) {
    DecodeCanvas cv({28}, 6, kMask);
    DreamUnmask u(dream_opts(1, 6, 3, DreamAlg::Entropy));
    Stats st(cv, {0.1f, 0.2f, 0.3f, 0.4f, 0.5f, 0.6f}, {1, 2, 3, 4, 5, 6});
    int total = 0;
    for (int step = 0; step < 3; ++step) {
        auto c = u.choose(st.ctx(cv, step));
        for (const auto& x : c) cv.unmask(x.pos, x.token, step);
        total += static_cast<int>(c.size());
    }
    EXPECT_EQ(total, 6);
    EXPECT_EQ(cv.masks_left(), 0);
}

TEST(DecodePolicy, DreamOriginIsBernoulliAndSeeded) {
    auto run = [](uint64_t seed, int step, int steps) {
        DecodeCanvas cv({28}, 200, kMask);
        DreamUnmask u(dream_opts(1, 200, steps, DreamAlg::Origin));
        Stats st(cv, std::vector<float>(200, 0.5f), std::vector<int32_t>(200, 7));
        return positions(u.choose(st.ctx(cv, step, seed)));
    };
    // p_transfer = 1 - s/t at step 0 of 4 is ~0.25: about 50 of 200, random positions.
    const auto a = run(3, 0, 4);
    EXPECT_GT(a.size(), 25u);
    EXPECT_LT(a.size(), 75u);
    EXPECT_EQ(a, run(3, 0, 4));
    EXPECT_NE(a, run(4, 0, 4));
    EXPECT_EQ(run(3, 3, 4).size(), 200u);  // the last step takes every mask
}

TEST(DecodePolicy, DreamAlgTempSamplesDistinctPositionsWithoutReplacement) {
    auto run = [](uint64_t seed) {
        DecodeCanvas cv({28}, 40, kMask);
        auto o = dream_opts(1, 40, 4, DreamAlg::MaskgitPlus);
        o.alg_temp = 0.5;
        o.source = ConfidenceSource::Raw;
        DreamUnmask u(o);
        std::vector<float> conf(40);
        for (int i = 0; i < 40; ++i) conf[static_cast<std::size_t>(i)] = 0.01f * static_cast<float>(i);
        Stats st(cv, conf, std::vector<int32_t>(40, 7));
        return positions(u.choose(st.ctx(cv, 0, seed)));
    };
    const auto a = run(11);
    EXPECT_EQ(a.size(), 9u);  // int(40 * 0.24975)
    EXPECT_EQ(std::set<int32_t>(a.begin(), a.end()).size(), a.size());
    EXPECT_EQ(a, run(11));
    bool differs = false;
    for (uint64_t s = 12; s < 16; ++s) differs |= run(s) != a;
    EXPECT_TRUE(differs);
}

TEST(DecodePolicy, DreamDefersEosToTheLastStep) {
    DecodeCanvas cv({28}, 4, kMask);
    auto o = dream_opts(1, 4, 4, DreamAlg::Origin);
    o.eos = {true, kEos, kEot};
    DreamUnmask u(o);
    Stats st(cv, {0.9f, 0.9f, 0.9f, 0.9f}, {kEos, kEos, kEot, kEos});
    for (int step = 0; step < 3; ++step) EXPECT_TRUE(u.choose(st.ctx(cv, step, 5)).empty()) << step;
    EXPECT_EQ(u.choose(st.ctx(cv, 3, 5)).size(), 4u);
}

TEST(DecodePolicy, StrategyFactoryKnowsBaselineAndRejectsTheRest) {
    const auto c = test::fake_config();
    DecodeSettings s;
    s.gen_length = s.steps = 8;
    Strategy st = make_strategy(s, c, 4);
    EXPECT_EQ(st.name, "baseline");
    EXPECT_EQ(st.unmask->name(), "llada");
    EXPECT_EQ(st.compute->name(), "full");
    EXPECT_EQ(st.revision->name(), "none");
    s.params["surelock.epsilon"] = "1e-3";
    EXPECT_TRUE(make_strategy(s, c, 4).issues.empty());  // another strategy's parameter: ignored (validate() warns)
    s.params["baseline.foo"] = "1";
    EXPECT_THROW(make_strategy(s, c, 4), Error);
    s.params = {{"warp.speed", "9"}};  // declared by no strategy: refused even where nothing reads it
    EXPECT_THROW(make_strategy(s, c, 4), Error);
    s.params.clear();
    s.strategy = "warp-drive";
    try {
        make_strategy(s, c, 4);
        FAIL();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("known: baseline"), std::string::npos);
    }
}

// A SureLock run of 8 tokens on the fake config, the settings the panel checks below.
DecodeSettings surelock_of_8(const std::string& key, const std::string& value) {
    DecodeSettings s;
    s.gen_length = s.steps = 8;
    s.strategy = "surelock";
    s.params[key] = value;
    return s;
}

TEST(DecodePolicy, ThePanelsCheckAddsTheStrategysOwnWarningsAndRefusals) {
    const auto c = test::fake_config();
    DecodeSettings s = surelock_of_8("surelock.epsilon", "0");
    auto issues = validate_with_strategy(s, c, 4);
    ASSERT_EQ(issues.size(), 1u);
    EXPECT_FALSE(issues[0].is_error());
    EXPECT_NE(issues[0].message.find("disables locking"), std::string::npos) << issues[0].message;
    EXPECT_TRUE(validate(s, c, 4).empty());  // validate() alone does not build the strategy
    s.params["surelock.epsilon"] = "-1";
    issues = validate_with_strategy(s, c, 4);
    ASSERT_EQ(issues.size(), 1u);
    EXPECT_TRUE(issues[0].is_error());
    EXPECT_NE(issues[0].message.find("outside [0, inf)"), std::string::npos) << issues[0].message;
}

// A parameter given while the setting it depends on says it is not read (the schema's
// only_when) is a warning naming that setting, whatever the strategy; given under the condition,
// nothing is said.
TEST(DecodePolicy, AParameterItsConditionSwitchesOffIsAWarning) {
    const auto c = test::fake_config();
    DecodeSettings s = surelock_of_8("surelock.unlock.period", "4");
    auto issues = validate_with_strategy(s, c, 4);
    ASSERT_EQ(issues.size(), 1u);
    EXPECT_FALSE(issues[0].is_error());
    EXPECT_EQ(issues[0].key, "surelock.unlock.period");
    EXPECT_EQ(issues[0].message, "surelock.unlock.period has no effect: read only while surelock.unlock=on");
    s.params["surelock.unlock"] = "true";  // any spelling of a switch
    EXPECT_TRUE(validate_with_strategy(s, c, 4).empty());

    EXPECT_EQ(only_when_unmet(setting_spec("guided.k"), {{"guided.match", "ratio"}}),
              "read only while guided.match=topk");
    EXPECT_EQ(only_when_unmet(setting_spec("guided.k"), {{"guided.match", "topk"}}), "");
    EXPECT_EQ(only_when_unmet(setting_spec("guided.ratio"), {}), "read only while guided.match=ratio");  // argmax by default
    EXPECT_EQ(only_when_unmet(setting_spec("surelock.epsilon"), {}), "");
    // One reading of a switch for the condition and for the strategy's own flag().
    EXPECT_EQ(switch_value("yes"), true);
    EXPECT_EQ(switch_value("0"), false);
    EXPECT_EQ(switch_value("maybe"), std::nullopt);
}

TEST(DecodePolicy, CanvasEventsFollowTheStateMachine) {
    DecodeCanvas cv({28, 1}, 3, kMask);
    EXPECT_EQ(cv.state(0), PosState::Prompt);
    EXPECT_EQ(cv.masks_left(), 3);
    cv.unmask(2, 7, 0);
    EXPECT_EQ(cv.event(2), PosEvent::Unmask);
    EXPECT_EQ(cv.state(2), PosState::Active);
    EXPECT_THROW(cv.unmask(2, 8, 0), Error);
    EXPECT_THROW(cv.unmask(1, 8, 0), Error);  // prompt
    cv.begin_step();
    cv.remask(2);
    EXPECT_EQ(cv.event(2), PosEvent::Remask);
    EXPECT_EQ(cv.masks_left(), 3);
    cv.begin_step();
    cv.unmask(2, 7, 2);
    EXPECT_EQ(cv.event(2), PosEvent::FlipFlop);
    cv.begin_step();
    cv.replace(2, 9);
    EXPECT_EQ(cv.event(2), PosEvent::Replace);
    cv.set_state(2, PosState::Locked, PosEvent::Lock);
    EXPECT_EQ(cv.state(2), PosState::Locked);
    EXPECT_THROW(cv.set_state(3, PosState::Locked, PosEvent::Lock), Error);  // masked
}

}  // namespace
}  // namespace dlm
