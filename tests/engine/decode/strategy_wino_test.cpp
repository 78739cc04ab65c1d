// WINO: wide-in drafting and narrow-out verification through the
// shadow block, on constructed logits where every decision is known in advance, on the CPU
// backend with a random model (the shadow geometry the session asks for), and on the embedded
// tiny-mdlm model end to end.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "compute/cpu/cpu_backend.h"
#include "decode/decode_session.h"
#include "decode/draft_unmask.h"
#include "decode/flops.h"
#include "decode/revision_counters.h"
#include "decode/strategy.h"
#include "decode/wino_revision.h"
#include "support/decode_fakes.h"
#include "model/checkpoint.h"
#include "support/strategy_test_support.h"
#include "trace/trace_io.h"
#include "util/error.h"

namespace dlm {
namespace {

using E = PosEvent;

TEST(StrategyWino, MaxAcceptFollowsTheReference) {
    // min(max(int(0.7 * masks), 5), 20)
    EXPECT_EQ(DraftUnmask::wino_cap(1), 5);
    EXPECT_EQ(DraftUnmask::wino_cap(8), 5);    // int(5.6) = 5
    EXPECT_EQ(DraftUnmask::wino_cap(10), 7);
    EXPECT_EQ(DraftUnmask::wino_cap(15), 10);  // int(10.5)
    EXPECT_EQ(DraftUnmask::wino_cap(28), 19);  // int(19.6)
    EXPECT_EQ(DraftUnmask::wino_cap(29), 20);
    EXPECT_EQ(DraftUnmask::wino_cap(128), 20);
}

TEST(StrategyWino, NarrowOutRule) {
    using V = std::vector<std::pair<int32_t, double>>;
    const V verified{{4, 0.5}, {5, 0.95}, {6, 0.89}, {7, 0.9}, {8, std::nan("")}};
    // Only when more than one token was accepted this step.
    EXPECT_TRUE(WinoRevision::narrow_out(verified, 0.9, 1, 30).empty());
    EXPECT_TRUE(WinoRevision::narrow_out(verified, 0.9, 0, 30).empty());
    // Strictly below threshold_back; NaN (no shadow statistic) never remasks.
    EXPECT_EQ(WinoRevision::narrow_out(verified, 0.9, 2, 30), (std::vector<int32_t>{4, 6}));
    // As many as last_accept: only last_accept - 1, the lowest (ties: lower position).
    const V low{{10, 0.3}, {11, 0.1}, {12, 0.2}, {13, 0.1}, {14, 0.8}};
    EXPECT_EQ(WinoRevision::narrow_out(low, 0.9, 2, 5), (std::vector<int32_t>{10, 11, 12, 13}));
    EXPECT_EQ(WinoRevision::narrow_out(low, 0.9, 2, 6), (std::vector<int32_t>{10, 11, 12, 13, 14}));  // 5 < 6
    EXPECT_EQ(WinoRevision::narrow_out(low, 0.9, 2, 3), (std::vector<int32_t>{11, 13}));
    EXPECT_EQ(WinoRevision::narrow_out(low, 0.9, 2, 2), (std::vector<int32_t>{11}));
    EXPECT_TRUE(WinoRevision::narrow_out(low, 0.9, 2, 1).empty());  // last_accept - 1 = 0
}

// --- a scripted run: every decision chosen by the test -------------------------------------
//
// Prompt 4 tokens, gen 8, one block of 8: canvas columns 0..11, shadow columns 12..19 whose twins
// are 4..11. A row "wants" (token, p): its logits put probability p on the token and spread the
// rest over the other 27 word ids, so the engine's own statistics give exactly p.
struct Want {
    int32_t token;
    double p;
};

void write_logits(int32_t token, double p, std::span<float> out) {
    std::fill(out.begin(), out.end(), -1e4f);
    for (int32_t v = 0; v < 28; ++v)
        out[static_cast<std::size_t>(v)] = static_cast<float>(v == token ? std::log(p) : std::log((1 - p) / 27));
}

struct Script {
    std::vector<std::map<int, Want>> real;      // per step: canvas position -> (token, p)
    std::vector<std::map<int, double>> shadow;  // per step: twin position -> p(twin's token)
};

Script wino_script() {
    Script s;
    // Step 0: six pass 0.6 but max_accept(8 masks) = 5: 4..8 are committed, 9 waits.
    s.real.push_back({{4, {1, .99}}, {5, {2, .98}}, {6, {3, .97}}, {7, {4, .96}}, {8, {5, .95}}, {9, {6, .94}},
                      {10, {7, .2}}, {11, {8, .2}}});
    s.shadow.push_back({});
    // Step 1: 9 and 10 accepted (2 > 1): 4, 5, 6 score below 0.9 (3 < last_accept 5) and go back.
    // 9 and 10 are this step's: not verified, whatever their shadow says.
    s.real.push_back({{9, {6, .9}}, {10, {7, .8}}, {11, {8, .1}}});
    s.shadow.push_back({{4, .5}, {5, .6}, {6, .7}, {7, .95}, {8, .95}, {9, .01}, {10, .01}});
    // Step 2: 4 gets its old token back (flip-flop), 5 a new one (effective), 11 too; 6 fails.
    // Of the verified 7..10, three score low but last_accept = 2: only the lowest (7) goes back.
    s.real.push_back({{4, {1, .9}}, {5, {12, .9}}, {6, {3, .3}}, {11, {8, .95}}});
    s.shadow.push_back({{7, .1}, {8, .2}, {9, .3}, {10, .95}});
    // Step 3: nothing passes: the single most confident (6, a new token) is accepted; one accept
    // means no verification even though every shadow scores low.
    s.real.push_back({{6, {13, .3}}, {7, {4, .2}}});
    s.shadow.push_back({{4, .1}, {5, .1}, {8, .1}, {9, .1}, {10, .1}, {11, .1}});
    // Step 4: 7 gets its old token back.
    s.real.push_back({{7, {4, .9}}});
    s.shadow.push_back({{4, .1}, {5, .1}, {6, .1}, {8, .1}, {9, .1}, {10, .1}, {11, .1}});
    return s;
}

TEST(StrategyWino, ScriptedRunFollowsWideInNarrowOut) {
    const ModelConfig c = test::fake_config();
    const Script script = wino_script();
    const int prompt_len = 4, gen = 8, n = prompt_len + gen;
    test::ScriptedBackend* self = nullptr;
    test::ScriptedBackend be(c, [&](int, std::span<const int32_t> tokens, int row, std::span<float> out) {
        const std::size_t step = self->forward_log.size() - 1;
        ASSERT_LT(step, script.real.size()) << "more steps than scripted";
        if (row < n) {
            const auto it = script.real[step].find(row);
            if (it == script.real[step].end()) return write_logits(0, 0.05, out);
            return write_logits(it->second.token, it->second.p, out);
        }
        const int twin = prompt_len + (row - n);
        const int32_t token = tokens[static_cast<std::size_t>(twin)];
        const auto it = script.shadow[step].find(twin);
        write_logits(token == c.mask_token_id ? 0 : token, it == script.shadow[step].end() ? .99 : it->second, out);
    });
    self = &be;
    test::FakeTokenizer tok(c);
    DecodeSettings s;
    s.strategy = "wino";
    s.gen_length = gen;
    s.steps = gen;
    s.block_length = gen;
    DecodeSession session(be, tok, c, test::fake_prompt(prompt_len), s);
    std::vector<StepTrace> steps;
    session.run([&](const StepTrace& t) {
        steps.push_back(t);
        return true;
    });
    ASSERT_EQ(steps.size(), 5u);
    EXPECT_EQ(session.masks_left(), 0);

    auto events = [&](int t) {
        std::map<int, E> m;
        for (const PositionTrace& p : steps[static_cast<std::size_t>(t)].positions)
            if (p.event != E::None) m[p.pos + prompt_len] = p.event;
        return m;
    };
    using M = std::map<int, E>;
    EXPECT_EQ(events(0), (M{{4, E::Unmask}, {5, E::Unmask}, {6, E::Unmask}, {7, E::Unmask}, {8, E::Unmask}}));
    EXPECT_EQ(events(1), (M{{4, E::Remask}, {5, E::Remask}, {6, E::Remask}, {9, E::Unmask}, {10, E::Unmask}}));
    EXPECT_EQ(events(2), (M{{4, E::FlipFlop}, {5, E::Unmask}, {7, E::Remask}, {11, E::Unmask}}));
    EXPECT_EQ(events(3), (M{{6, E::Unmask}}));
    EXPECT_EQ(events(4), (M{{7, E::FlipFlop}}));
    const std::vector<int> accepted{5, 2, 3, 1, 1};
    for (std::size_t t = 0; t < steps.size(); ++t) EXPECT_EQ(steps[t].newly_unmasked, accepted[t]) << "step " << t;

    const std::vector<int32_t> canvas = session.canvas();
    const std::vector<int32_t> answer(canvas.begin() + prompt_len, canvas.end());
    EXPECT_EQ(answer, (std::vector<int32_t>{1, 12, 13, 4, 5, 6, 7, 8}));

    // The counters are the shared ones, so WINO's numbers compare with Saber's and COVER's.
    auto count = [&](int t, const char* key) {
        const auto& m = steps[static_cast<std::size_t>(t)].counters;
        const auto it = m.find(key);
        return it == m.end() ? 0.0 : it->second;
    };
    EXPECT_EQ(count(1, "remasks"), 3);
    EXPECT_EQ(count(2, "remasks"), 1);
    EXPECT_EQ(count(2, "flipflops"), 1);
    EXPECT_EQ(count(2, "effective_remasks"), 1);
    EXPECT_EQ(count(3, "effective_remasks"), 1);
    EXPECT_EQ(count(4, "flipflops"), 1);
    const RevisionCounts total = RevisionCounts::from(session.summary().counters);
    EXPECT_EQ(total.remasks, 4);
    EXPECT_EQ(total.flipflops, 2);
    EXPECT_EQ(total.effective_remasks, 2);
    EXPECT_EQ(total.replaces, 0);
    EXPECT_EQ(total.keeps, 0);

    // Every forward is N + B long: the shadow columns hold [MASK], and the cost says so.
    ASSERT_EQ(be.forward_log.size(), steps.size());
    for (std::size_t t = 0; t < steps.size(); ++t) {
        const auto& tokens = be.forward_log[t][0];
        ASSERT_EQ(tokens.size(), static_cast<std::size_t>(n + gen));
        for (int j = n; j < n + gen; ++j) EXPECT_EQ(tokens[static_cast<std::size_t>(j)], c.mask_token_id);
        const StepTrace& st = steps[t];
        EXPECT_EQ(st.rows_computed, n + gen);
        EXPECT_EQ(st.rows_total, n);
        EXPECT_DOUBLE_EQ(st.paper_flops, paper_flops(c, n + gen, n + gen));
        EXPECT_DOUBLE_EQ(st.paper_flops_dense, paper_flops_dense(c, n));
        EXPECT_DOUBLE_EQ(st.lm_head_flops, lm_head_flops(c, gen + gen));
    }
}

// --- the session on the real CPU backend: the shadow block it asks for --------------------

class ShadowRecordingBackend final : public Backend {
public:
    explicit ShadowRecordingBackend(std::unique_ptr<Backend> inner, bool claims_layout = true)
        : inner_(std::move(inner)), claims_layout_(claims_layout) {}
    std::string name() const override { return claims_layout_ ? inner_->name() : "plain"; }
    bool supports_attention_layout() const override { return claims_layout_ && inner_->supports_attention_layout(); }
    const ModelConfig& config() const override { return inner_->config(); }
    std::unique_ptr<KvCache> make_cache(int positions) override { return inner_->make_cache(positions); }
    std::unique_ptr<PosteriorStore> make_posterior_store(int positions) override {
        return inner_->make_posterior_store(positions);
    }
    void forward(std::span<const ForwardItem> batch) override {
        inner_->forward(batch);
        const ForwardItem& it = batch[0];
        calls.push_back({{it.tokens.begin(), it.tokens.end()},
                         {it.rows.begin(), it.rows.end()},
                         {it.head_rows.begin(), it.head_rows.end()},
                         {it.position_ids.begin(), it.position_ids.end()},
                         it.shadow});
    }
    std::vector<RowStats> row_stats(const RowStatsRequest& req) override { return inner_->row_stats(req); }
    std::vector<float> logits(int item, int i) const override { return inner_->logits(item, i); }
    std::vector<float> attention_lse(int item) const override { return inner_->attention_lse(item); }
    uint64_t rows_computed() const override { return inner_->rows_computed(); }

    struct Call {
        std::vector<int32_t> tokens, rows, head_rows, position_ids;
        ShadowBlock shadow;
    };
    std::vector<Call> calls;

private:
    std::unique_ptr<Backend> inner_;
    bool claims_layout_;
};

TEST(StrategyWino, SessionRunsTheShadowBlockOfTheCurrentBlock) {
    test::ScratchDir dir("dlm-wino-session");
    const test::RandomCheckpoint ck = test::write_random_checkpoint(dir.path(), Family::Llada);
    const ModelWeights weights = test::load_random_checkpoint(ck);
    ShadowRecordingBackend be(make_cpu_backend(weights, {std::size_t(1) << 30, 1}));
    const ModelConfig& c = weights.config;
    test::FakeTokenizer tok(c);
    const int prompt_len = 6, gen = 16, block = 8, n = prompt_len + gen;
    DecodeSettings s;
    s.strategy = "wino";
    s.gen_length = gen;
    s.steps = gen;
    s.block_length = block;
    // A random model is unsure of everything: a low draft threshold accepts several tokens per
    // step, and a high verification threshold sends verified ones back.
    s.params["wino.threshold"] = "0.02";
    s.params["wino.threshold_back"] = "0.9";
    DecodeSession session(be, tok, c, test::strategy_prompt(prompt_len), s);
    std::vector<StepTrace> steps;
    session.run([&](const StepTrace& t) {
        steps.push_back(t);
        return true;
    });
    ASSERT_EQ(be.calls.size(), steps.size());
    EXPECT_EQ(session.masks_left(), 0);

    std::vector<int32_t> token(static_cast<std::size_t>(gen), c.mask_token_id);  // before the step
    int last_block = -1, last_accept = WinoRevision::kInitialLastAccept;
    long long remasks = 0;
    for (std::size_t t = 0; t < steps.size(); ++t) {
        const StepTrace& st = steps[t];
        const auto& call = be.calls[t];
        const int twin_first = prompt_len + st.block * block;
        // The shadow block: after the canvas, at the current block's positions, all [MASK],
        // computed and through the LM head.
        ASSERT_EQ(call.tokens.size(), static_cast<std::size_t>(n + block));
        EXPECT_EQ(call.shadow.first, n);
        EXPECT_EQ(call.shadow.count, block);
        EXPECT_EQ(call.shadow.twin_first, twin_first) << "step " << t;
        ASSERT_EQ(call.position_ids.size(), static_cast<std::size_t>(n + block));
        for (int j = 0; j < n; ++j) EXPECT_EQ(call.position_ids[static_cast<std::size_t>(j)], j);
        for (int j = 0; j < block; ++j) {
            EXPECT_EQ(call.position_ids[static_cast<std::size_t>(n + j)], twin_first + j);
            EXPECT_EQ(call.tokens[static_cast<std::size_t>(n + j)], c.mask_token_id);
        }
        ASSERT_EQ(call.rows.size(), static_cast<std::size_t>(n + block));
        EXPECT_EQ(call.rows.back(), n + block - 1);
        EXPECT_EQ(call.head_rows.back(), n + block - 1);

        if (st.block != last_block) last_accept = WinoRevision::kInitialLastAccept;
        last_block = st.block;
        int remasked = 0;
        for (const PositionTrace& pt : st.positions) {
            if (pt.event != E::Remask) continue;
            ++remasked;
            const int pos = pt.pos + prompt_len;
            // Only tokens decoded before this step, inside the current block.
            EXPECT_NE(token[static_cast<std::size_t>(pt.pos)], c.mask_token_id) << "step " << t << " pos " << pos;
            EXPECT_GE(pos, twin_first);
            EXPECT_LT(pos, twin_first + block);
        }
        EXPECT_GE(st.newly_unmasked, 1);
        if (st.newly_unmasked <= 1) EXPECT_EQ(remasked, 0) << "step " << t;
        EXPECT_LE(remasked, std::max(0, last_accept - 1)) << "step " << t;
        last_accept = st.newly_unmasked;
        remasks += remasked;
        for (const PositionTrace& pt : st.positions) token[static_cast<std::size_t>(pt.pos)] = pt.token;
    }
    EXPECT_GT(remasks, 0) << "WINO never sent a token back";
    const RevisionCounts total = RevisionCounts::from(session.summary().counters);
    EXPECT_EQ(total.remasks, remasks);
    EXPECT_EQ(total.effective_remasks + total.flipflops, remasks);  // every remask was re-unmasked
    EXPECT_LE(static_cast<int>(steps.size()), session.planned_steps());
}

// A backend that cannot run the shadow block is refused before the first step, with a reason.
TEST(StrategyWino, SessionRefusesABackendWithoutShadowBlocks) {
    test::ScratchDir dir("dlm-wino-refuse");
    const test::RandomCheckpoint ck = test::write_random_checkpoint(dir.path(), Family::Llada);
    const ModelWeights weights = test::load_random_checkpoint(ck);
    ShadowRecordingBackend be(make_cpu_backend(weights, {std::size_t(1) << 30, 1}), /*claims_layout=*/false);
    test::FakeTokenizer tok(weights.config);
    DecodeSettings s;
    s.strategy = "wino";
    s.gen_length = 8;
    s.steps = 8;
    try {
        DecodeSession session(be, tok, weights.config, test::strategy_prompt(4), s);
        ADD_FAILURE() << "the session accepted a backend without shadow blocks";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("plain backend does not support"), std::string::npos) << e.what();
    }
    EXPECT_TRUE(be.calls.empty());
    s.strategy = "saber";  // needs nothing of the kind
    EXPECT_NO_THROW(DecodeSession(be, tok, weights.config, test::strategy_prompt(4), s));
}

TEST(StrategyWino, Registry) {
    const ModelConfig c = test::fake_config();
    DecodeSettings s;
    s.strategy = "wino";
    s.gen_length = 32;
    s.steps = 32;
    Strategy st = make_strategy(s, c, 4);
    EXPECT_EQ(st.revision->name(), "wino");
    EXPECT_EQ(st.revision->shadow_capacity(), 32);  // 128 does not divide 32: one block
    EXPECT_EQ(st.unmask->planned_steps(), 32 + 29);
    s.gen_length = 256;
    s.steps = 256;
    st = make_strategy(s, c, 4);
    EXPECT_EQ(st.revision->shadow_capacity(), 128);  // the paper's block
    EXPECT_EQ(st.unmask->planned_steps(), 256 + 2 * 29);
    s.block_length = 64;  // the run's block length wins over the default
    EXPECT_EQ(make_strategy(s, c, 4).revision->shadow_capacity(), 64);
    s.params["wino.block_length"] = "32";
    s.params["wino.max_steps"] = "100";
    st = make_strategy(s, c, 4);
    EXPECT_EQ(st.revision->shadow_capacity(), 32);
    EXPECT_EQ(st.unmask->planned_steps(), 100);
    const std::vector<std::string> known = known_strategies();
    EXPECT_TRUE(std::find(known.begin(), known.end(), "wino") != known.end());
}

TEST(StrategyWino, RefusesWhatItCannotDo) {
    const ModelConfig llada = test::fake_config(Family::Llada);
    DecodeSettings s;
    s.strategy = "wino";
    s.gen_length = 32;
    s.steps = 32;
    auto message = [&](const ModelConfig& c) {
        try {
            make_strategy(s, c, 4);
        } catch (const Error& e) {
            return std::string(e.what());
        }
        return std::string();
    };
    s.cfg_scale = 1.0;
    EXPECT_NE(message(llada).find("classifier-free guidance"), std::string::npos);
    s.cfg_scale = 0.0;
    EXPECT_NE(message(test::fake_config(Family::Dream)).find("shifted-logit"), std::string::npos);
    s.params["wino.block_length"] = "5";  // does not divide 32
    EXPECT_NE(message(llada).find("divide"), std::string::npos);
    s.params.erase("wino.block_length");
    s.params["wino.threshold"] = "1.5";
    EXPECT_FALSE(message(llada).empty());
    s.params.erase("wino.threshold");
    s.params["wino.thresh_back"] = "0.5";  // a typo of threshold_back
    EXPECT_FALSE(message(llada).empty());
    s.params.erase("wino.thresh_back");
    // Prompt + generation fit the 512-position context, the shadow block does not.
    s.gen_length = 480;
    s.steps = 480;
    s.block_length = 96;
    EXPECT_NE(message(llada).find("context"), std::string::npos);
    s.block_length = 24;
    EXPECT_TRUE(message(llada).empty());
}

// --- the embedded model end to end ------------------------------------------------------------

TEST(StrategyWino, TinyMdlmFinishesAndItsTraceRoundTrips) {
    const std::filesystem::path dir = std::filesystem::path(DLM_SOURCE_DIR) / "resources/models/tiny-mdlm";
    ASSERT_TRUE(std::filesystem::exists(dir / "config.json")) << "the embedded model " << dir << " is missing";
    const Checkpoint ck = load_checkpoint(dir);
    auto backend = make_cpu_backend(ck.weights, {std::size_t(1) << 30, 0});
    DecodeSettings s;
    s.strategy = "wino";
    s.gen_length = 32;
    s.steps = 32;
    s.block_length = 16;
    const std::vector<int32_t> prompt = build_prompt(ck, "What is 23 + 45?", true);
    DecodeSession session(*backend, *ck.tokenizer, ck.config(), prompt, s, {"tiny-mdlm", "What is 23 + 45?"});
    std::stringstream io;
    TraceWriter w(io);
    w.write_header(session.header());
    std::vector<StepTrace> steps;
    session.run([&](const StepTrace& t) {
        w.write_step(t);
        steps.push_back(t);
        return true;
    });
    w.write_summary(session.summary());
    EXPECT_TRUE(session.finished());
    EXPECT_EQ(session.masks_left(), 0);
    for (int32_t id : session.canvas()) EXPECT_NE(id, ck.config().mask_token_id);

    const TraceFile f = parse_trace(io, "wino");
    EXPECT_EQ(f.header.strategy, "wino");
    ASSERT_EQ(f.steps.size(), steps.size());
    for (std::size_t t = 0; t < steps.size(); ++t)
        EXPECT_EQ(step_trace_to_json(f.steps[t]), step_trace_to_json(steps[t])) << "step " << t;
    ASSERT_TRUE(f.summary);
    EXPECT_EQ(trace_summary_to_json(*f.summary), trace_summary_to_json(session.summary()));
    EXPECT_GT(f.summary->flops_ratio(), 1.0);  // N + B per step against the plain N
}

}  // namespace
}  // namespace dlm
