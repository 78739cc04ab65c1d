// End-to-end decodes on tiny random checkpoints through the real CPU backend.
#include <gtest/gtest.h>

#include <limits>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "compute/cpu/cpu_backend.h"
#include "decode/decode_session.h"
#include "decode/flops.h"
#include "support/decode_fakes.h"
#include "support/random_checkpoint.h"
#include "util/error.h"

namespace dlm {
namespace {

struct Model {
    test::ScratchDir dir{"dlm-decode-test"};
    test::RandomCheckpoint ck;
    ModelWeights weights;
    std::unique_ptr<Backend> backend;
    std::unique_ptr<test::FakeTokenizer> tok;
};

std::unique_ptr<Model> make_model(Family family) {
    auto m = std::make_unique<Model>();
    test::RandomCheckpointOptions o;
    o.seed = family == Family::Dream ? 7 : 3;
    m->ck = test::write_random_checkpoint(m->dir.path(), family, o);
    m->weights = test::load_random_checkpoint(m->ck);
    m->backend = make_cpu_backend(m->weights, {std::size_t(1) << 30, 1});
    m->tok = std::make_unique<test::FakeTokenizer>(m->weights.config);
    return m;
}

std::vector<int32_t> prompt(int n) {
    std::vector<int32_t> p;
    for (int i = 0; i < n; ++i) p.push_back((i * 13 + 2) % 50);
    return p;
}

struct Decoded {
    std::vector<StepTrace> steps;
    std::vector<int32_t> canvas;
};

Decoded decode(Model& m, const DecodeSettings& s, int prompt_len = 8) {
    const ModelConfig& c = m.weights.config;
    DecodeSession session(*m.backend, *m.tok, c, prompt(prompt_len), s);
    Decoded d;
    session.run([&](const StepTrace& t) {
        d.steps.push_back(t);
        return true;
    });
    d.canvas = session.canvas();
    return d;
}

DecodeSettings llada(int gen, int steps, int block, double temperature, uint64_t seed) {
    DecodeSettings s;
    s.gen_length = gen;
    s.steps = steps;
    s.block_length = block;
    s.temperature = temperature;
    s.seed = seed;
    return s;
}

TEST(DecodeCpu, LladaCommitsOnceInBlockOrderAndNeverChanges) {
    auto m = make_model(Family::Llada);
    const Decoded d = decode(*m, llada(24, 12, 8, 0.8, 5));
    ASSERT_EQ(d.steps.size(), 12u);
    std::vector<int32_t> committed(24, -1);
    int revealed = 0;
    for (const StepTrace& t : d.steps) {
        for (const PositionTrace& p : t.positions) {
            const auto i = static_cast<std::size_t>(p.pos);
            if (p.event == PosEvent::Unmask) {
                ASSERT_EQ(committed[i], -1);
                EXPECT_EQ(p.pos / 8, t.block) << "step " << t.step;
                committed[i] = p.token;
                ++revealed;
            }
            if (committed[i] >= 0) EXPECT_EQ(p.token, committed[i]);
            EXPECT_FALSE(std::isnan(p.confidence));
        }
    }
    EXPECT_EQ(revealed, 24);
    for (int i = 0; i < 24; ++i) EXPECT_EQ(d.canvas[static_cast<std::size_t>(8 + i)], committed[static_cast<std::size_t>(i)]);
}

TEST(DecodeCpu, SeedDeterminesTheRun) {
    auto m = make_model(Family::Llada);
    const auto s = llada(16, 8, 16, 1.0, 11);
    const Decoded a = decode(*m, s), b = decode(*m, s);
    EXPECT_EQ(a.canvas, b.canvas);
    ASSERT_EQ(a.steps.size(), b.steps.size());
    for (std::size_t i = 0; i < a.steps.size(); ++i)
        for (std::size_t p = 0; p < a.steps[i].positions.size(); ++p) {
            EXPECT_EQ(a.steps[i].positions[p].token, b.steps[i].positions[p].token);
            EXPECT_EQ(a.steps[i].positions[p].confidence, b.steps[i].positions[p].confidence);
        }
    bool any_differs = false;
    for (uint64_t seed : {12, 13, 14}) any_differs |= decode(*m, llada(16, 8, 16, 1.0, seed)).canvas != a.canvas;
    EXPECT_TRUE(any_differs);
    // At T = 0 the seed does not matter.
    EXPECT_EQ(decode(*m, llada(16, 8, 16, 0.0, 1)).canvas, decode(*m, llada(16, 8, 16, 0.0, 2)).canvas);
}

TEST(DecodeCpu, CancelReturnsAfterOneStep) {
    auto m = make_model(Family::Llada);
    DecodeSession session(*m->backend, *m->tok, m->weights.config, prompt(8), llada(32, 32, 32, 0.0, 0));
    int seen = 0;
    const auto t0 = std::chrono::steady_clock::now();
    EXPECT_FALSE(session.run([&](const StepTrace&) {
        ++seen;
        return false;
    }));
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_EQ(seen, 1);
    EXPECT_EQ(session.steps_done(), 1);
    EXPECT_LT(ms, 5000.0);
}

TEST(DecodeCpu, DreamUsesRowIMinusOneForPositionI) {
    auto m = make_model(Family::Dream);
    const ModelConfig& c = m->weights.config;
    ASSERT_TRUE(c.shifted_logits);
    DecodeSettings s;
    s.gen_length = 12;
    s.steps = 3;
    s.alg = DreamAlg::MaskgitPlus;
    const int P = 8;
    DecodeSession session(*m->backend, *m->tok, c, prompt(P), s);
    const StepTrace t = session.step();
    ASSERT_GT(t.newly_unmasked, 0);
    // Head rows P-1 .. N-2 in order: head row index j describes position P + j. Masked rows of
    // a random model mostly share one argmax, so compare the whole distribution's peak. The
    // session never offers the mask token as a candidate (its logit is -inf), so neither does this.
    const int32_t mask_id = m->weights.config.mask_token_id;
    auto peak = [&](int head_index) {
        auto l = m->backend->logits(0, head_index);
        l[static_cast<std::size_t>(mask_id)] = -std::numeric_limits<float>::infinity();
        const float mx = *std::max_element(l.begin(), l.end());
        double z = 0;
        for (float v : l) z += std::exp(double(v) - mx);
        const auto arg = static_cast<int32_t>(std::max_element(l.begin(), l.end()) - l.begin());
        return std::pair<int32_t, double>{arg, 1.0 / z};
    };
    int differs_from_own_row = 0;
    for (const PositionTrace& p : t.positions) {
        const auto [arg, pmax] = peak(p.pos);
        ASSERT_FALSE(p.top.empty());
        EXPECT_EQ(p.top[0].id, arg) << "position " << p.pos;
        EXPECT_NEAR(p.confidence, pmax, 1e-5) << "position " << p.pos;
        if (p.event == PosEvent::Unmask) EXPECT_EQ(p.token, arg);
        if (p.pos + 1 < 12) differs_from_own_row += std::abs(p.confidence - peak(p.pos + 1).second) > 1e-5;
    }
    EXPECT_GT(differs_from_own_row, 0);  // the unshifted row would have given other statistics
    session.run();
    EXPECT_EQ(session.masks_left(), 0);
}

TEST(DecodeCpu, CfgDoublesTheRowsAndStillFillsTheCanvas) {
    auto m = make_model(Family::Llada);
    auto s = llada(8, 8, 8, 0.0, 0);
    const uint64_t before = m->backend->rows_computed();
    s.cfg_scale = 1.5;
    const Decoded d = decode(*m, s);
    const int n = 16;
    EXPECT_EQ(m->backend->rows_computed() - before, uint64_t(8 * 2 * n));
    for (const StepTrace& t : d.steps) {
        EXPECT_EQ(t.rows_computed, 2 * n);
        EXPECT_DOUBLE_EQ(t.paper_flops, 2 * paper_flops(m->weights.config, n, n));
    }
    for (int p = 8; p < 16; ++p) EXPECT_NE(d.canvas[static_cast<std::size_t>(p)], m->weights.config.mask_token_id);
    // Guidance changes the distributions (else the test would prove nothing).
    const Decoded plain = decode(*m, llada(8, 8, 8, 0.0, 0));
    int changed = 0;
    for (std::size_t p = 0; p < 8; ++p)
        changed += std::abs(plain.steps[0].positions[p].confidence - d.steps[0].positions[p].confidence) > 1e-4;
    EXPECT_GT(changed, 0);
}

TEST(DecodeCpu, EveryDreamAlgorithmFinishes) {
    auto m = make_model(Family::Dream);
    for (DreamAlg alg : {DreamAlg::Origin, DreamAlg::MaskgitPlus, DreamAlg::TopkMargin, DreamAlg::Entropy}) {
        DecodeSettings s;
        s.gen_length = 16;
        s.steps = 8;
        s.alg = alg;
        s.temperature = 0.5;
        s.top_p = 0.9;
        s.alg_temp = alg == DreamAlg::Entropy ? 0.1 : 0.0;
        const Decoded d = decode(*m, s);
        EXPECT_EQ(d.steps.size(), 8u) << dream_alg_name(alg);
        int revealed = 0;
        for (const auto& t : d.steps) revealed += t.newly_unmasked;
        EXPECT_EQ(revealed, 16) << dream_alg_name(alg);
    }
}

}  // namespace
}  // namespace dlm
