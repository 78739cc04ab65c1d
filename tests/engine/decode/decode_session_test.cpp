// The decode loop on a scripted backend: the logits are chosen by the test, the statistics and
// sampling are the engine's own (compute_row_stats), so every decision can be checked.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <set>
#include <sstream>

#include "decode/decode_session.h"
#include "decode/flops.h"
#include "support/decode_fakes.h"
#include "trace/trace_io.h"
#include "util/error.h"

namespace dlm {
namespace {

using test::fake_config;
using test::fake_prompt;
using test::FakeTokenizer;
using test::ScriptedBackend;

DecodeSettings llada_settings(int gen, int steps, int block) {
    DecodeSettings s;
    s.gen_length = gen;
    s.steps = steps;
    s.block_length = block;
    return s;
}

struct DecodeRun {
    std::vector<StepTrace> steps;
    TraceSummary summary;
    std::vector<int32_t> canvas;
};

DecodeRun run_all(ScriptedBackend& be, const ModelConfig& c, DecodeSettings s, int prompt_len = 6) {
    FakeTokenizer tok(c);
    DecodeSession session(be, tok, c, fake_prompt(prompt_len), std::move(s));
    DecodeRun r;
    session.run([&](const StepTrace& t) {
        r.steps.push_back(t);
        return true;
    });
    r.summary = session.summary();
    r.canvas = session.canvas();
    return r;
}

bool same_tokens(const DecodeRun& a, const DecodeRun& b) {
    if (a.steps.size() != b.steps.size()) return false;
    for (std::size_t i = 0; i < a.steps.size(); ++i)
        for (std::size_t p = 0; p < a.steps[i].positions.size(); ++p)
            if (a.steps[i].positions[p].token != b.steps[i].positions[p].token ||
                a.steps[i].positions[p].event != b.steps[i].positions[p].event)
                return false;
    return true;
}

TEST(DecodeSession, LladaRevealsEveryPositionOnceInBlockOrder) {
    const auto c = fake_config();
    ScriptedBackend be(c, test::varied_logits);
    const DecodeRun r = run_all(be, c, llada_settings(24, 12, 8));  // 3 blocks, 4 steps each, 2 per step
    ASSERT_EQ(r.steps.size(), 12u);
    std::vector<int32_t> committed(24, -1);
    int total = 0;
    for (const StepTrace& t : r.steps) {
        EXPECT_EQ(t.block, t.step / 4);
        EXPECT_EQ(t.newly_unmasked, 2);
        ASSERT_EQ(t.positions.size(), 24u);
        for (const PositionTrace& p : t.positions) {
            const auto i = static_cast<std::size_t>(p.pos);
            if (p.event == PosEvent::Unmask) {
                ++total;
                EXPECT_EQ(p.pos / 8, t.block) << "reveal outside the current block at step " << t.step;
                EXPECT_EQ(committed[i], -1) << "position " << p.pos << " revealed twice";
                committed[i] = p.token;
            } else {
                EXPECT_EQ(p.event, PosEvent::None);
            }
            if (committed[i] >= 0) {
                EXPECT_EQ(p.token, committed[i]) << "committed token changed at " << p.pos;
                EXPECT_EQ(p.state, PosState::Active);
            } else {
                EXPECT_EQ(p.state, PosState::Masked);
                EXPECT_EQ(p.token, c.mask_token_id);
                EXPECT_EQ(p.text, "<mask>");
            }
        }
    }
    EXPECT_EQ(total, 24);
    EXPECT_EQ(r.summary.tokens_unmasked, 24);
    // At T = 0 the committed token is the row's argmax (row r prefers (7r + 3) % 28).
    for (int i = 0; i < 24; ++i) EXPECT_EQ(committed[static_cast<std::size_t>(i)], ((6 + i) * 7 + 3) % 28);
}

TEST(DecodeSession, ZeroRevealStepsStillRun) {
    const auto c = fake_config();
    ScriptedBackend be(c, test::varied_logits);
    FakeTokenizer tok(c);
    DecodeSession s(be, tok, c, fake_prompt(4), llada_settings(4, 8, 4));
    EXPECT_FALSE(s.warnings().empty());  // 8 steps for 4 tokens: explained, not refused
    std::vector<int> reveals;
    s.run([&](const StepTrace& t) {
        reveals.push_back(t.newly_unmasked);
        return true;
    });
    EXPECT_EQ(reveals, (std::vector<int>{1, 1, 1, 1, 0, 0, 0, 0}));
    EXPECT_TRUE(s.finished());
    EXPECT_EQ(s.masks_left(), 0);
    EXPECT_THROW(s.step(), Error);
}

TEST(DecodeSession, SameSeedSameTraceDifferentSeedDifferentTokens) {
    const auto c = fake_config();
    // Flat-ish logits so that temperature sampling has real choices.
    auto flat = [](int, std::span<const int32_t>, int row, std::span<float> out) {
        for (std::size_t v = 0; v < 28; ++v) out[v] = 0.05f * static_cast<float>((v + static_cast<std::size_t>(row)) % 5);
    };
    ScriptedBackend be(c, flat);
    auto s = llada_settings(16, 8, 16);
    s.temperature = 1.0;
    s.seed = 42;
    const DecodeRun a = run_all(be, c, s), b = run_all(be, c, s);
    EXPECT_TRUE(same_tokens(a, b));
    for (std::size_t i = 0; i < a.steps.size(); ++i)
        for (std::size_t p = 0; p < a.steps[i].positions.size(); ++p) {
            const auto &x = a.steps[i].positions[p], &y = b.steps[i].positions[p];
            EXPECT_TRUE(x.confidence == y.confidence || (std::isnan(x.confidence) && std::isnan(y.confidence)));
        }
    s.seed = 43;
    EXPECT_NE(run_all(be, c, s).canvas, a.canvas);
}

TEST(DecodeSession, CancelStopsWithinOneStep) {
    const auto c = fake_config();
    ScriptedBackend be(c, test::varied_logits);
    FakeTokenizer tok(c);
    DecodeSession s(be, tok, c, fake_prompt(4), llada_settings(16, 16, 16));
    int calls = 0;
    EXPECT_FALSE(s.run([&](const StepTrace&) { return ++calls < 3; }));
    EXPECT_EQ(calls, 3);
    EXPECT_EQ(s.steps_done(), 3);
    EXPECT_FALSE(s.finished());
    // request_cancel from "another thread" (here: the callback) stops after the current step.
    EXPECT_FALSE(s.run([&](const StepTrace&) {
        s.request_cancel();
        return true;
    }));
    EXPECT_EQ(s.steps_done(), 4);
    EXPECT_TRUE(s.cancelled());
    EXPECT_FALSE(s.run());
    EXPECT_EQ(s.steps_done(), 4);
    // The summary of a cut-short run drops the masks.
    EXPECT_EQ(s.summary().tokens_unmasked, 4);
}

TEST(DecodeSession, DreamPredictsPositionIFromRowIMinusOne) {
    const auto c = fake_config(Family::Dream);
    ScriptedBackend be(c, test::varied_logits);
    DecodeSettings s;
    s.gen_length = 12;
    s.steps = 6;
    const int prompt = 5;
    FakeTokenizer tok(c);
    DecodeSession session(be, tok, c, fake_prompt(prompt), s);
    session.step();
    // Head rows are 4..15: the last prompt row predicts the first generated token; the last row
    // of the canvas predicts nothing.
    std::vector<int32_t> want;
    for (int r = prompt - 1; r < prompt + 12 - 1; ++r) want.push_back(r);
    EXPECT_EQ(be.last_head_rows(), want);
    session.run();
    const auto canvas = session.canvas();
    for (int p = prompt; p < prompt + 12; ++p)
        EXPECT_EQ(canvas[static_cast<std::size_t>(p)], ((p - 1) * 7 + 3) % 28) << "position " << p;
}

TEST(DecodeSession, DreamScheduleRevealsTheRestOnTheLastStep) {
    const auto c = fake_config(Family::Dream);
    ScriptedBackend be(c, test::varied_logits);
    DecodeSettings s;
    s.gen_length = 16;
    s.steps = 16;
    const DecodeRun r = run_all(be, c, s);
    ASSERT_EQ(r.steps.size(), 16u);
    EXPECT_EQ(r.steps.front().newly_unmasked, 0);  // int(16 * 0.999/16) = 0
    EXPECT_EQ(r.summary.tokens_unmasked, 16);
    EXPECT_GE(r.steps.back().newly_unmasked, 1);
    for (std::size_t p = 0; p < 16; ++p) EXPECT_NE(r.canvas[6 + p], c.mask_token_id);
}

TEST(DecodeSession, LogitsEosInfNeverSamplesEos) {
    auto c = fake_config();
    auto eos_everywhere = [&](int, std::span<const int32_t>, int row, std::span<float> out) {
        test::varied_logits(0, {}, row, out);
        out[30] = 50.f;  // EOS dominates every row
    };
    ScriptedBackend be(c, eos_everywhere);
    auto s = llada_settings(16, 16, 16);
    s.temperature = 0.7;
    const DecodeRun plain = run_all(be, c, s);
    int eos_plain = 0;
    for (std::size_t p = 6; p < plain.canvas.size(); ++p) eos_plain += plain.canvas[p] == 30;
    EXPECT_EQ(eos_plain, 16);
    s.eos = EosPolicy::LogitsEosInf;
    const DecodeRun r = run_all(be, c, s);
    for (std::size_t p = 6; p < r.canvas.size(); ++p) EXPECT_NE(r.canvas[p], 30);
    for (const StepTrace& t : r.steps)
        for (const PositionTrace& p : t.positions)
            for (const Candidate& cand : p.top) EXPECT_NE(cand.id, 30);
}

TEST(DecodeSession, ConfidenceEosEotInfRevealsEosLastWithinEachBlock) {
    auto c = fake_config();
    // Generated positions 6, 9, 12, ... confidently predict EOS, 7, 10, ... EoT: without the
    // policy they would go first.
    auto logits = [&](int, std::span<const int32_t>, int row, std::span<float> out) {
        test::varied_logits(0, {}, row, out);
        if (row >= 6 && (row - 6) % 3 == 0) out[30] = 40.f;
        if (row >= 6 && (row - 6) % 3 == 1) out[29] = 40.f;
    };
    ScriptedBackend be(c, logits);
    auto s = llada_settings(24, 24, 12);
    s.eos = EosPolicy::ConfidenceEosEotInf;
    const DecodeRun r = run_all(be, c, s);
    std::vector<int> reveal_step(24, -1);
    for (const StepTrace& t : r.steps)
        for (const PositionTrace& p : t.positions)
            if (p.event == PosEvent::Unmask) reveal_step[static_cast<std::size_t>(p.pos)] = t.step;
    for (int block = 0; block < 2; ++block) {
        int last_normal = -1, first_special = 1 << 30;
        for (int i = block * 12; i < block * 12 + 12; ++i) {
            const int tok = r.canvas[static_cast<std::size_t>(6 + i)];
            const int st = reveal_step[static_cast<std::size_t>(i)];
            ASSERT_GE(st, 0);
            if (tok == 29 || tok == 30) first_special = std::min(first_special, st);
            else last_normal = std::max(last_normal, st);
        }
        EXPECT_LT(last_normal, first_special) << "block " << block;
    }
    // EOS / EoT are still sampled (not suppressed): the policy only orders them.
    int specials = 0;
    for (std::size_t p = 6; p < r.canvas.size(); ++p) specials += r.canvas[p] == 29 || r.canvas[p] == 30;
    EXPECT_EQ(specials, 16);
    // The answer is cut at the first EOS/EoT: position 6 holds EOS, so nothing is left.
    EXPECT_EQ(r.summary.text, "");
}

TEST(DecodeSession, SummaryTextIsCutAtTheFirstEndToken) {
    auto c = fake_config();
    auto logits = [&](int, std::span<const int32_t>, int row, std::span<float> out) {
        test::varied_logits(0, {}, row, out);
        if (row == 9) out[29] = 40.f;  // EoT at the 4th generated position
    };
    ScriptedBackend be(c, logits);
    const DecodeRun r = run_all(be, c, llada_settings(8, 8, 8));
    FakeTokenizer tok(c);
    std::string want;
    for (int p = 6; p < 9; ++p) want += tok.token_text(r.canvas[static_cast<std::size_t>(p)]);
    EXPECT_EQ(r.summary.text, want);
}

TEST(DecodeSession, CfgRunsAPromptMaskedSecondItem) {
    const auto c = fake_config();
    // The conditional item prefers token 3 a little, the unconditional one prefers it more:
    // guidance (u + (s + 1)(c - u)) must flip the choice to token 5.
    auto logits = [&](int item, std::span<const int32_t> tokens, int, std::span<float> out) {
        std::fill(out.begin(), out.end(), 0.f);
        out[3] = item == 0 ? 2.0f : 3.0f;
        out[5] = item == 0 ? 1.9f : 0.0f;
        (void)tokens;
    };
    ScriptedBackend be(c, logits);
    auto s = llada_settings(4, 4, 4);
    const DecodeRun plain = run_all(be, c, s, 5);
    EXPECT_EQ(plain.canvas[5], 3);
    be.forward_log.clear();
    s.cfg_scale = 1.0;
    const DecodeRun r = run_all(be, c, s, 5);
    for (int p = 5; p < 9; ++p) EXPECT_EQ(r.canvas[static_cast<std::size_t>(p)], 5);
    ASSERT_FALSE(be.forward_log.empty());
    const auto& last = be.forward_log.back();
    ASSERT_EQ(last.size(), 2u);
    for (int p = 0; p < 5; ++p) {
        EXPECT_EQ(last[1][static_cast<std::size_t>(p)], c.mask_token_id);  // prompt masked
        EXPECT_NE(last[0][static_cast<std::size_t>(p)], c.mask_token_id);
    }
    for (std::size_t p = 5; p < 9; ++p) EXPECT_EQ(last[1][p], last[0][p]);  // generated region shared
    EXPECT_EQ(r.steps[0].rows_total, 2 * 9);
    EXPECT_DOUBLE_EQ(r.steps[0].paper_flops, 2 * paper_flops(c, 9, 9));
}

TEST(DecodeSession, TraceCarriesFlopsTimingAndKl) {
    const auto c = fake_config();
    ScriptedBackend be(c, test::varied_logits);
    const DecodeRun r = run_all(be, c, llada_settings(8, 4, 8), 4);
    const int n = 12;
    for (const StepTrace& t : r.steps) {
        EXPECT_EQ(t.rows_computed, n);
        EXPECT_EQ(t.rows_total, n);
        EXPECT_DOUBLE_EQ(t.paper_flops, paper_flops(c, n, n));
        EXPECT_DOUBLE_EQ(t.paper_flops_dense, paper_flops(c, n, n));
        EXPECT_DOUBLE_EQ(t.lm_head_flops, lm_head_flops(c, 8));
        EXPECT_GE(t.wall_ms, 0.0);
        EXPECT_EQ(t.strategy, "baseline");
        for (const PositionTrace& p : t.positions) {
            EXPECT_GT(p.confidence, 0.f);
            EXPECT_LE(p.confidence, 1.f);
            EXPECT_GT(p.entropy, 0.f);
            EXPECT_EQ(p.top.size(), 5u);
            EXPECT_EQ(p.top[0].text, "t" + std::to_string(p.top[0].id) + " ");
            // No previous posterior at step 0; the logits never change here, so KL = 0 after.
            if (t.step == 0) EXPECT_TRUE(std::isnan(p.kl));
            else EXPECT_NEAR(p.kl, 0.f, 1e-6f);
        }
    }
    EXPECT_EQ(r.summary.steps, 4);
    EXPECT_DOUBLE_EQ(r.summary.paper_flops, 4 * paper_flops(c, n, n));
    EXPECT_EQ(r.summary.rows_computed, 4 * n);
    EXPECT_DOUBLE_EQ(r.summary.flops_ratio(), 1.0);
    EXPECT_EQ(be.rows_computed(), 4u * n);
}

TEST(DecodeSession, KlIsOffWhenNotTracked) {
    const auto c = fake_config();
    ScriptedBackend be(c, test::varied_logits);
    auto s = llada_settings(4, 4, 4);
    s.track_kl = TrackKl::Off;
    const DecodeRun r = run_all(be, c, s);
    for (const PositionTrace& p : r.steps.back().positions) EXPECT_TRUE(std::isnan(p.kl));
}

TEST(DecodeSession, HeaderRecordsResolvedSettingsAndWritesAReadableTrace) {
    const auto c = fake_config();
    ScriptedBackend be(c, test::varied_logits);
    FakeTokenizer tok(c);
    auto s = llada_settings(8, 8, 4);
    s.seed = 7;
    DecodeSession session(be, tok, c, fake_prompt(3), s, {"tiny", "hi"});
    const TraceHeader h = session.header();
    EXPECT_EQ(h.model, "tiny");
    EXPECT_EQ(h.prompt, "hi");
    EXPECT_EQ(h.family, "llada");
    EXPECT_EQ(h.prompt_ids, fake_prompt(3));
    EXPECT_EQ(h.prompt_pieces.front(), "<bos>");
    EXPECT_EQ(h.block_length, 4);
    EXPECT_EQ(h.seed, 7u);
    EXPECT_EQ(h.settings.at("sampler"), "llada");  // auto resolved
    EXPECT_EQ(h.settings.at("confidence"), "raw");
    EXPECT_EQ(h.requested.at("sampler"), "auto");  // as asked for, for a panel to restore
    EXPECT_EQ(h.requested.at("confidence"), "auto");
    EXPECT_EQ(h.requested.at("seed"), "7");
    EXPECT_EQ(h.backend, "scripted");

    std::stringstream io;
    TraceWriter w(io);
    w.write_header(h);
    session.run([&](const StepTrace& t) {
        w.write_step(t);
        return true;
    });
    w.write_summary(session.summary());
    const TraceFile f = parse_trace(io, "session");
    EXPECT_EQ(f.steps.size(), 8u);
    ASSERT_TRUE(f.summary);
    EXPECT_EQ(f.summary->tokens_unmasked, 8);
    EXPECT_EQ(f.steps.back().positions.back().token, session.canvas().back());
    // The recorded settings reproduce the run.
    DecodeSettings again;
    for (const auto& [k, v] : f.header.settings) again.set(k, v);
    ScriptedBackend be2(c, test::varied_logits);
    DecodeSession replay(be2, tok, c, f.header.prompt_ids, again);
    replay.run();
    EXPECT_EQ(replay.canvas(), session.canvas());
}

TEST(DecodeSession, InvalidSettingsAreRefusedWithEveryError) {
    const auto c = fake_config();
    ScriptedBackend be(c, test::varied_logits);
    FakeTokenizer tok(c);
    auto s = llada_settings(10, 7, 4);
    s.top_p = 0;
    try {
        DecodeSession session(be, tok, c, fake_prompt(3), s);
        FAIL() << "accepted invalid settings";
    } catch (const Error& e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find("block_length"), std::string::npos) << msg;
        EXPECT_NE(msg.find("top_p"), std::string::npos) << msg;
    }
    EXPECT_THROW(DecodeSession(be, tok, c, {28, 99}, llada_settings(4, 4, 4)), Error);  // id outside vocab
    EXPECT_THROW(DecodeSession(be, tok, c, {}, llada_settings(4, 4, 4)), Error);
    auto bad = llada_settings(4, 4, 4);
    bad.strategy = "nope";
    EXPECT_THROW(DecodeSession(be, tok, c, fake_prompt(3), bad), Error);
}

}  // namespace
}  // namespace dlm
