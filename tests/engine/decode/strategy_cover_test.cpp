// COVER (the COVER paper, §5, Appendix B): the closed-form diagonal correction against a direct
// softmax, and the backend's one-pass dual view against the explicit leave-one-out view.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "compute/cover_correction.h"
#include "compute/cpu/cpu_backend.h"
#include "decode/cover_revision.h"
#include "decode/decode_session.h"
#include "decode/revision_counters.h"
#include "decode/strategy.h"
#include "support/decode_fakes.h"
#include "support/random_checkpoint.h"
#include "support/reference_forward.h"
#include "util/counter_rng.h"
#include "util/error.h"

namespace dlm {
namespace {

using test::RandomCheckpoint;
using test::ReferenceOutput;
using test::ReferenceOverride;

// One attention head written out directly: softmax over `keys`, weighted sum of `values`.
std::vector<double> direct_attention(const std::vector<double>& q, const std::vector<std::vector<double>>& keys,
                                     const std::vector<std::vector<double>>& values, double* lse_out) {
    const double scale = 1.0 / std::sqrt(static_cast<double>(q.size()));
    std::vector<double> s(keys.size());
    double mx = -INFINITY;
    for (std::size_t j = 0; j < keys.size(); ++j) {
        s[j] = 0;
        for (std::size_t d = 0; d < q.size(); ++d) s[j] += q[d] * keys[j][d];
        s[j] *= scale;
        mx = std::max(mx, s[j]);
    }
    double sum = 0;
    for (double& x : s) sum += (x = std::exp(x - mx));
    std::vector<double> o(q.size(), 0.0);
    for (std::size_t j = 0; j < keys.size(); ++j)
        for (std::size_t d = 0; d < q.size(); ++d) o[d] += s[j] / sum * values[j][d];
    if (lse_out) *lse_out = mx + std::log(sum);
    return o;
}

TEST(StrategyCover, ClosedFormCorrectionEqualsDirectSoftmax) {
    const CounterRng rng(7, 1);
    uint64_t k = 0;
    auto u = [&] { return rng.uniform(1, k++) * 2.0 - 1.0; };
    const int hd = 8, n = 10;
    for (int trial = 0; trial < 20; ++trial) {
        const double spread = 1.0 + trial;  // up to large scores: exp(delta) must not overflow
        std::vector<double> q(hd);
        for (double& x : q) x = u() * spread;
        std::vector<std::vector<double>> K(n, std::vector<double>(hd)), V = K;
        for (auto& r : K) for (double& x : r) x = u();
        for (auto& r : V) for (double& x : r) x = u();
        const int i = trial % n;
        std::vector<double> k_fresh(hd), v_fresh(hd);
        for (double& x : k_fresh) x = u();
        for (double& x : v_fresh) x = u();

        double lse_ovr = 0, lse_loo = 0;
        const auto o_ovr = direct_attention(q, K, V, &lse_ovr);
        auto K_loo = K, V_loo = V;
        K_loo[i] = k_fresh;
        V_loo[i] = v_fresh;
        const auto o_loo = direct_attention(q, K_loo, V_loo, &lse_loo);

        std::vector<float> of(o_ovr.begin(), o_ovr.end()), vo(V[i].begin(), V[i].end()),
            vf(v_fresh.begin(), v_fresh.end()), out(hd);
        const double scale = 1.0 / std::sqrt(static_cast<double>(hd));
        DiagonalCorrectionInput in;
        in.out_override = of;
        in.lse_override = lse_ovr;
        for (int d = 0; d < hd; ++d) {
            in.score_override += q[d] * K[i][d] * scale;
            in.score_fresh += q[d] * k_fresh[d] * scale;
        }
        in.v_override = vo;
        in.v_fresh = vf;
        const DiagonalCorrection c = apply_diagonal_correction(in, out);
        for (int d = 0; d < hd; ++d) EXPECT_NEAR(out[d], o_loo[d], 1e-5) << "trial " << trial;
        EXPECT_NEAR(c.lse, lse_loo, 1e-9 * std::max(1.0, std::abs(lse_loo)));
        // Lemma B.1: the corrected diagonal weight is the leave-one-out softmax weight.
        double s_fresh = in.score_fresh;
        EXPECT_NEAR(c.weight_self, std::exp(s_fresh - lse_loo), 1e-9);
    }
    std::vector<float> a(4), b(3);
    DiagonalCorrectionInput bad;
    bad.out_override = a;
    bad.v_override = b;
    bad.v_fresh = a;
    EXPECT_THROW(apply_diagonal_correction(bad, a), Error);
}

struct CoverForward {
    std::vector<std::vector<float>> logits;  // [row][V]
    std::vector<float> lse;                  // [layer][row][head]
    std::vector<float> attention;            // [row][n]
};

// The dual-view equalities, on both bidirectional families and with the verified column on the
// diagonal (offset 0) and after it (offset 1, how a shifted-logit model verifies): rows verifying
// a seed, corrected in closed form, equal the explicit leave-one-out view (the backend's recompute
// and the independent double reference) within 1e-4. On the diagonal every other row equals the
// plain override forward exactly (the seed's corrected state reaches no other row); after it, the
// verifying row's own column carries its corrected state to the others, and they match the
// reference and the recompute within 1e-4.
TEST(StrategyCover, ClosedFormDualViewEqualsLeaveOneOutForward) {
    for (Family family : {Family::Llada, Family::Dream})
    for (int offset : {0, 1}) {
        test::ScratchDir dir("dlm-cover-test");
        const RandomCheckpoint ck = test::write_random_checkpoint(dir.path(), family);
        const ModelWeights weights = test::load_random_checkpoint(ck);
        auto be = make_cpu_backend(weights);
        const int n = 14, V = ck.config.vocab_size, mask = ck.config.mask_token_id;
        std::vector<int32_t> previous(n);
        for (int i = 0; i < n; ++i) previous[i] = static_cast<int32_t>((i * 29 + 3) % (V - 2));
        previous[12] = previous[13] = mask;  // still masked at the previous step
        std::vector<int32_t> rows(n);
        std::iota(rows.begin(), rows.end(), 0);

        auto prev_cache = be->make_cache(n);
        ForwardItem prev_item;
        prev_item.tokens = previous;
        prev_item.rows = rows;
        prev_item.cache = prev_cache.get();
        be->forward(std::span<const ForwardItem>(&prev_item, 1));
        const std::vector<int32_t> seeds = {2, 7, 9};
        auto snapshot = be->make_cache(n);
        snapshot->copy_rows_from(*prev_cache, seeds);

        auto current = previous;
        for (int s : seeds) current[s] = mask;
        current[12] = static_cast<int32_t>(V / 3);  // drafted at the previous step

        auto run = [&](bool self_sees_fresh, bool closed_form) {
            KvOverride o;
            o.positions = seeds;
            o.source = snapshot.get();
            o.self_sees_fresh = self_sees_fresh;
            o.closed_form = closed_form;
            o.verifier_offset = offset;
            auto cache = be->make_cache(n);
            ForwardItem it;
            it.tokens = current;
            it.rows = rows;
            it.head_rows = rows;
            it.cache = cache.get();
            it.kv_override = &o;
            it.want_lse = true;
            it.want_attention = true;
            be->forward(std::span<const ForwardItem>(&it, 1));
            CoverForward f;
            for (int i = 0; i < n; ++i) f.logits.push_back(be->logits(0, i));
            f.lse = be->attention_lse(0);
            f.attention = be->last_layer_attention(0);
            return f;
        };
        const CoverForward closed = run(true, true);
        const CoverForward explicit_loo = run(true, false);
        const CoverForward override_only = run(false, false);

        const ReferenceOutput ref_prev = test::reference_forward(ck, previous);
        ReferenceOverride ro;
        ro.positions = seeds;
        ro.k = ref_prev.k;
        ro.v = ref_prev.v;
        ro.self_sees_fresh = true;
        ro.verifier_offset = offset;
        const ReferenceOutput ref = test::reference_forward(ck, current, &ro);

        const std::string what = std::string(family_name(family)) + " offset " + std::to_string(offset);
        // The largest |closed - other| over row i's vocabulary.
        auto max_diff = [&](int i, auto&& other) {
            double worst = 0;
            for (int t = 0; t < V; ++t)
                worst = std::max(worst, std::abs(static_cast<double>(closed.logits[i][t]) - static_cast<double>(other(i, t))));
            return worst;
        };
        auto reference = [&](int i, int t) { return ref.logit(i, t); };
        auto explicit_leave_one_out = [&](int i, int t) { return explicit_loo.logits[i][t]; };
        for (int i = 0; i < n; ++i) {
            const bool verifies = std::find(seeds.begin(), seeds.end(), i + offset) != seeds.end();
            if (verifies) {
                EXPECT_LT(max_diff(i, reference), 1e-4) << what << " verifying row " << i;
                EXPECT_LT(max_diff(i, explicit_leave_one_out), 1e-4) << what << " verifying row " << i;
                EXPECT_GT(max_diff(i, [&](int r, int t) { return override_only.logits[r][t]; }), 1e-4)
                    << what << ": the correction must change verifying row " << i;
            } else if (offset == 0) {
                EXPECT_EQ(closed.logits[i], override_only.logits[i]) << what << " other row " << i;
                EXPECT_EQ(explicit_loo.logits[i], override_only.logits[i]) << what << " other row " << i;
            } else {
                // Every other row reads the verifying row's own column, computed from its
                // leave-one-out state: the same view in all three forwards.
                EXPECT_LT(max_diff(i, reference), 1e-4) << what << " other row " << i;
                EXPECT_LT(max_diff(i, explicit_leave_one_out), 1e-4) << what << " other row " << i;
            }
        }
        // Per-layer log-sum-exp of the corrected rows: lse_ovr + log r.
        const ModelConfig& c = ck.config;
        double worst_lse = 0;
        for (int l = 0; l < c.n_layers; ++l)
            for (int i = 0; i < n; ++i)
                for (int h = 0; h < c.n_heads; ++h)
                    worst_lse = std::max(worst_lse, std::abs(closed.lse[(static_cast<std::size_t>(l) * n + i) * c.n_heads + h] -
                                                             ref.layer_lse(l, i, h)));
        EXPECT_LT(worst_lse, 1e-4) << what;
        // Head-averaged last-layer attention: rows sum to 1, and both seed views agree.
        ASSERT_EQ(closed.attention.size(), static_cast<std::size_t>(n) * n);
        for (int i = 0; i < n; ++i) {
            double sum = 0;
            for (int j = 0; j < n; ++j) {
                sum += closed.attention[static_cast<std::size_t>(i) * n + j];
                EXPECT_NEAR(closed.attention[static_cast<std::size_t>(i) * n + j],
                            explicit_loo.attention[static_cast<std::size_t>(i) * n + j], 1e-5);
            }
            EXPECT_NEAR(sum, 1.0, 1e-4) << what << " row " << i;
        }
    }
}

// --- seed selection (§5.3) -------------------------------------------------------------------

TEST(StrategyCover, SeedCountIsCeilSqrtOfNTimesTailMass) {
    SeedScoreInput in;
    // 9 positions: scores u·(1+d_in)/(1+d_out) = 1,1,1,1,1,1,1,10,10 -> mean 3, two above: pi = 2/9,
    // sqrt(9·2/9) = 1.41 -> 2 seeds: the two high scores.
    for (int i = 0; i < 9; ++i) {
        in.unmasked.push_back(10 + i);
        in.uncertainty.push_back(i >= 7 ? 5.0 : 1.0);
        in.d_in.push_back(i >= 7 ? 1.0 : 0.0);
        in.d_out.push_back(0.0);
        in.eligible.push_back(1);
    }
    SeedChoice c = choose_seeds(in);
    EXPECT_EQ(c.target, 2);
    EXPECT_EQ(c.seeds, (std::vector<int32_t>{17, 18}));
    EXPECT_DOUBLE_EQ(c.scores[7], 10.0);
    // d_out penalises: position 17 drifts (it attends to this step's drafts) down to score 1;
    // mean 2, one score above it: sqrt(9·1/9) = 1 seed.
    in.d_out[7] = 9.0;
    c = choose_seeds(in);
    EXPECT_DOUBLE_EQ(c.scores[7], 1.0);
    EXPECT_EQ(c.target, 1);
    EXPECT_EQ(c.seeds, (std::vector<int32_t>{18}));
    // Scores 3,3,3,1: mean 2.5, pi = 3/4, ceil(sqrt(3)) = 2 of the three tied 3s: the lowest positions.
    SeedScoreInput tie;
    tie.unmasked = {4, 5, 6, 7};
    tie.uncertainty = {1, 3, 3, 3};
    tie.d_in = tie.d_out = {0, 0, 0, 0};
    tie.eligible = {1, 1, 1, 1};
    EXPECT_EQ(choose_seeds(tie).seeds, (std::vector<int32_t>{5, 6}));
    // A seed of this step is never chosen again; the cap applies after the adaptive rule.
    in.d_out[7] = 0.0;
    in.eligible[8] = 0;
    c = choose_seeds(in);
    EXPECT_EQ(c.seeds, (std::vector<int32_t>{10, 17}));
    EXPECT_EQ(choose_seeds(in, 1).seeds, (std::vector<int32_t>{17}));
    // All scores equal: nothing is above the mean, pi = 0, no seed.
    SeedScoreInput flat = in;
    for (auto& u : flat.uncertainty) u = 2.0;
    for (auto& d : flat.d_in) d = 0.0;
    EXPECT_TRUE(choose_seeds(flat).seeds.empty());
    EXPECT_TRUE(choose_seeds(SeedScoreInput{}).seeds.empty());
}

// --- the session: the dual-view forward really runs, and the decisions follow §5.2 ----------

// Forwards to the CPU backend and records what reached it.
class CoverRecordingBackend final : public Backend {
public:
    explicit CoverRecordingBackend(std::unique_ptr<Backend> inner) : inner_(std::move(inner)) {}
    std::string name() const override { return inner_->name(); }
    const ModelConfig& config() const override { return inner_->config(); }
    std::unique_ptr<KvCache> make_cache(int positions) override { return inner_->make_cache(positions); }
    std::unique_ptr<PosteriorStore> make_posterior_store(int positions) override {
        return inner_->make_posterior_store(positions);
    }
    void forward(std::span<const ForwardItem> batch) override {
        inner_->forward(batch);
        Call c;
        c.tokens.assign(batch[0].tokens.begin(), batch[0].tokens.end());
        if (batch[0].kv_override) {
            c.override_positions = batch[0].kv_override->positions;
            c.closed_form = batch[0].kv_override->closed_form;
            c.self_sees_fresh = batch[0].kv_override->self_sees_fresh;
            c.verifier_offset = batch[0].kv_override->verifier_offset;
        }
        c.want_attention = batch[0].want_attention;
        calls.push_back(std::move(c));
    }
    std::vector<RowStats> row_stats(const RowStatsRequest& req) override {
        auto out = inner_->row_stats(req);
        stats.push_back(out);
        return out;
    }
    std::vector<float> logits(int item, int i) const override { return inner_->logits(item, i); }
    std::vector<float> attention_lse(int item) const override { return inner_->attention_lse(item); }
    std::vector<float> last_layer_attention(int item) const override { return inner_->last_layer_attention(item); }
    uint64_t rows_computed() const override { return inner_->rows_computed(); }

    struct Call {
        std::vector<int32_t> tokens, override_positions;
        bool closed_form = false, self_sees_fresh = false, want_attention = false;
        int verifier_offset = -1;
    };
    std::vector<Call> calls;
    std::vector<std::vector<RowStats>> stats;

private:
    std::unique_ptr<Backend> inner_;
};

struct CoverRun {
    std::vector<StepTrace> steps;
    std::vector<int32_t> canvas;
    TraceSummary summary;
};

CoverRun run_cover(CoverRecordingBackend& be, const ModelConfig& c, DecodeSettings s, int prompt_len) {
    test::FakeTokenizer tok(c);
    std::vector<int32_t> prompt;
    for (int i = 0; i < prompt_len; ++i) prompt.push_back((i * 13 + 2) % 50);
    DecodeSession session(be, tok, c, prompt, std::move(s));
    CoverRun r;
    session.run([&](const StepTrace& t) {
        r.steps.push_back(t);
        return true;
    });
    r.canvas = session.canvas();
    r.summary = session.summary();
    return r;
}

// On LLaDA (row i predicts token i) and on Dream (shifted logits: row i - 1 predicts token i,
// so the row before each seed verifies it).
void expect_session_verifies_seeds(Family family) {
    test::ScratchDir dir("dlm-cover-session");
    const RandomCheckpoint ck = test::write_random_checkpoint(dir.path(), family);
    const ModelWeights weights = test::load_random_checkpoint(ck);
    CoverRecordingBackend be(make_cpu_backend(weights, {std::size_t(1) << 30, 1}));
    const ModelConfig& c = weights.config;
    DecodeSettings s;
    s.strategy = "cover";
    s.gen_length = 24;
    s.steps = 24;
    s.block_length = 8;
    // A random model is unsure of everything: a low threshold lets COVER draft several tokens and
    // keep or replace some seeds, and still remask others.
    s.params["cover.tau_draft"] = "0.06";
    s.params["cover.budget"] = "3";
    const int prompt_len = 6;
    const CoverRun r = run_cover(be, c, s, prompt_len);
    ASSERT_FALSE(r.steps.empty());
    ASSERT_EQ(be.calls.size(), r.steps.size());
    const int gen = s.gen_length;

    std::vector<int32_t> seeds_prev;  // seeds announced by the previous step
    int keeps = 0, replaces = 0, remasks = 0;
    for (std::size_t t = 0; t < r.steps.size(); ++t) {
        const StepTrace& st = r.steps[t];
        const auto& call = be.calls[t];
        // The forward of step t masks exactly the previous step's seeds and overrides their K/V.
        EXPECT_TRUE(call.want_attention);
        EXPECT_EQ(call.override_positions, seeds_prev) << "step " << t;
        if (!seeds_prev.empty()) {
            EXPECT_TRUE(call.closed_form);
            EXPECT_TRUE(call.self_sees_fresh);
            EXPECT_EQ(call.verifier_offset, c.shifted_logits ? 1 : 0);
        }
        for (int32_t p : seeds_prev) EXPECT_EQ(call.tokens[static_cast<std::size_t>(p)], c.mask_token_id);
        // Each verified seed gets exactly one of KEEP / REPLACE / REMASK, and is never a seed again now.
        for (int32_t p : seeds_prev) {
            const PositionTrace& pt = st.positions[static_cast<std::size_t>(p - prompt_len)];
            EXPECT_TRUE(pt.event == PosEvent::Keep || pt.event == PosEvent::Replace || pt.event == PosEvent::Remask)
                << "step " << t << " seed " << p << " event " << pos_event_name(pt.event);
            EXPECT_NE(pt.state, PosState::Seed) << "a seed twice in a row at step " << t;
            if (pt.event == PosEvent::Remask) EXPECT_EQ(pt.token, c.mask_token_id);
            keeps += pt.event == PosEvent::Keep;
            replaces += pt.event == PosEvent::Replace;
            remasks += pt.event == PosEvent::Remask;
        }
        // Only seeds are revised: no other position changes once unmasked.
        std::vector<int32_t> seeds_now;
        for (const PositionTrace& pt : st.positions) {
            const int32_t p = pt.pos + prompt_len;
            if (pt.state == PosState::Seed) {
                seeds_now.push_back(p);
                EXPECT_NE(pt.token, c.mask_token_id);
            }
            const bool was_seed = std::find(seeds_prev.begin(), seeds_prev.end(), p) != seeds_prev.end();
            if (!was_seed) EXPECT_TRUE(pt.event == PosEvent::None || pt.event == PosEvent::Unmask || pt.event == PosEvent::FlipFlop);
        }
        // Drafting: at least one and at most B commits, all inside one block.
        EXPECT_GE(st.newly_unmasked, 1);
        EXPECT_LE(st.newly_unmasked, 3);
        seeds_prev = seeds_now;
    }
    // The run ends with no mask and no pending seed.
    for (int p = prompt_len; p < prompt_len + gen; ++p) EXPECT_NE(r.canvas[static_cast<std::size_t>(p)], c.mask_token_id);
    EXPECT_TRUE(seeds_prev.empty());
    EXPECT_GT(keeps + replaces + remasks, 0) << "no seed was ever verified";
    // The trace's counters are the events.
    const RevisionCounts total = RevisionCounts::from(r.summary.counters);
    EXPECT_EQ(total.keeps, keeps);
    EXPECT_EQ(total.replaces, replaces);
    EXPECT_EQ(total.remasks, remasks);
    EXPECT_EQ(total.effective_remasks + total.flipflops, remasks);  // every remask was re-unmasked
}

TEST(StrategyCover, SessionVerifiesSeedsInTheDraftingForward) {
    for (Family family : {Family::Llada, Family::Dream}) {
        SCOPED_TRACE(family_name(family));
        expect_session_verifies_seeds(family);
    }
}

// The seed rows' statistics in the session are the leave-one-out predictions: the same forward
// with the recompute path instead of the closed form gives the same decisions and tokens.
void expect_closed_form_and_recompute_agree(Family family) {
    test::ScratchDir dir("dlm-cover-session");
    const RandomCheckpoint ck = test::write_random_checkpoint(dir.path(), family);
    const ModelWeights weights = test::load_random_checkpoint(ck);
    DecodeSettings s;
    s.strategy = "cover";
    s.gen_length = 16;
    s.steps = 16;
    s.block_length = 8;
    s.params["cover.tau_draft"] = "0.06";
    s.params["cover.budget"] = "2";
    CoverRecordingBackend a(make_cpu_backend(weights, {std::size_t(1) << 30, 1}));
    const CoverRun ra = run_cover(a, weights.config, s, 5);
    s.params["cover.correction"] = "recompute";
    CoverRecordingBackend b(make_cpu_backend(weights, {std::size_t(1) << 30, 1}));
    const CoverRun rb = run_cover(b, weights.config, s, 5);
    EXPECT_EQ(ra.canvas, rb.canvas);
    ASSERT_EQ(ra.steps.size(), rb.steps.size());
    for (std::size_t t = 0; t < ra.steps.size(); ++t)
        for (std::size_t p = 0; p < ra.steps[t].positions.size(); ++p) {
            EXPECT_EQ(ra.steps[t].positions[p].event, rb.steps[t].positions[p].event);
            EXPECT_NEAR(ra.steps[t].positions[p].confidence, rb.steps[t].positions[p].confidence, 1e-4);
        }
}

TEST(StrategyCover, ClosedFormAndRecomputeGiveTheSameRun) {
    for (Family family : {Family::Llada, Family::Dream}) {
        SCOPED_TRACE(family_name(family));
        expect_closed_form_and_recompute_agree(family);
    }
}

TEST(StrategyCover, RefusesWhatItCannotDo) {
    const ModelConfig llada = test::fake_config(Family::Llada);
    DecodeSettings s;
    s.strategy = "cover";
    s.gen_length = 16;
    s.steps = 16;
    s.cfg_scale = 1.0;
    EXPECT_THROW(make_strategy(s, llada, 4), Error);
    s.cfg_scale = 0.0;
    EXPECT_NO_THROW(make_strategy(s, test::fake_config(Family::Dream), 4));  // verified from the row before
    s.params["cover.budget"] = "0";
    EXPECT_THROW(make_strategy(s, llada, 4), Error);
    s.params.erase("cover.budget");
    s.params["cover.tau"] = "0.5";  // typo of tau_draft
    EXPECT_THROW(make_strategy(s, llada, 4), Error);
    s.params.erase("cover.tau");
    s.params["cover.correction"] = "recompute";
    const Strategy st = make_strategy(s, llada, 4);
    EXPECT_EQ(st.revision->name(), "cover");
    EXPECT_EQ(st.unmask->planned_steps(), 32);
}

}  // namespace
}  // namespace dlm
