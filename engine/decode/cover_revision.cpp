#include "decode/cover_revision.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "util/error.h"

namespace dlm {

namespace {

// p_j(y): the raw probability of token y at a position, from whichever statistic holds it.
double prob_of(const RowStats& s, int32_t y) {
    if (y == s.argmax) return s.p_max;
    if (y == s.sampled) return s.sampled_p_raw;
    return s.query_p;  // the canvas token at the forward (NaN when it was masked then)
}

}  // namespace

SeedChoice choose_seeds(const SeedScoreInput& in, int max_seeds) {
    const std::size_t n = in.unmasked.size();
    if (in.uncertainty.size() != n || in.d_in.size() != n || in.d_out.size() != n || in.eligible.size() != n)
        throw Error("cover seed selection: per-position inputs of different lengths");
    SeedChoice c;
    c.scores.resize(n);
    if (n == 0) return c;
    double mean = 0;
    for (std::size_t i = 0; i < n; ++i) {
        c.scores[i] = in.uncertainty[i] * (1.0 + in.d_in[i]) / (1.0 + in.d_out[i]);
        mean += c.scores[i];
    }
    mean /= static_cast<double>(n);
    std::size_t above = 0;
    for (double s : c.scores) above += s > mean ? 1 : 0;  // pi_t = 1 - F_t(mean)
    const double pi = static_cast<double>(above) / static_cast<double>(n);
    c.target = static_cast<int>(std::ceil(std::sqrt(static_cast<double>(n) * pi)));
    int k = c.target;
    if (max_seeds > 0) k = std::min(k, max_seeds);
    std::vector<std::size_t> order;
    for (std::size_t i = 0; i < n; ++i)
        if (in.eligible[i]) order.push_back(i);
    k = std::min<int>(k, static_cast<int>(order.size()));
    std::partial_sort(order.begin(), order.begin() + k, order.end(), [&](std::size_t a, std::size_t b) {
        if (c.scores[a] != c.scores[b]) return c.scores[a] > c.scores[b];
        return in.unmasked[a] < in.unmasked[b];
    });
    for (int i = 0; i < k; ++i) c.seeds.push_back(in.unmasked[order[static_cast<std::size_t>(i)]]);
    std::sort(c.seeds.begin(), c.seeds.end());
    return c;
}

CoverRevision::CoverRevision(CoverOptions o) : o_(o) {
    if (!(o_.tau_draft >= 0 && o_.tau_draft <= 1)) throw Error("cover: tau_draft must lie in [0, 1]");
    if (o_.max_seeds < 0) throw Error("cover: max_seeds must be >= 0");
}

void CoverRevision::attach(Backend& backend, KvCache& cache) {
    backend_ = &backend;
    cache_ = &cache;
    snapshot_ = backend.make_cache(cache.positions());
    seeds_.clear();
}

void CoverRevision::adjust_forward(int, const DecodeCanvas& canvas, std::span<const int32_t> rows,
                                   ForwardAdjustment& adjust) {
    if (!backend_) throw Error("cover: the revision policy was not attached to a session");
    rows_.assign(rows.begin(), rows.end());
    verifying_ = seeds_;
    for (int32_t p : verifying_)
        if (canvas.is_masked(p)) throw Error("cover: seed " + std::to_string(p) + " is masked before its verification");
    adjust.want_attention = true;
    if (verifying_.empty()) return;
    adjust.masked_inputs = verifying_;
    override_.positions = verifying_;
    override_.source = snapshot_.get();
    override_.self_sees_fresh = true;
    override_.closed_form = o_.closed_form;
    override_.verifier_offset = predictor_offset();
    adjust.kv_override = &override_;
}

std::vector<Revision> CoverRevision::revise(const StepContext& ctx) {
    const DecodeCanvas& cv = ctx.canvas;
    const int n = cv.size();
    std::vector<Revision> out;

    // 1. KEEP / REPLACE / REMASK of the verified seeds (§5.2).
    std::vector<int32_t> token(cv.tokens().begin(), cv.tokens().end());  // y^(t) as it will be
    std::vector<char> masked(static_cast<std::size_t>(n), 0);
    for (int p = 0; p < n; ++p) masked[static_cast<std::size_t>(p)] = cv.is_masked(p) ? 1 : 0;
    std::vector<double> p_current(static_cast<std::size_t>(n), std::nan(""));  // p_j(y_j^(t)) where known
    for (int32_t i : verifying_) {
        const RowStats* s = ctx.at(i);
        if (!s) {
            out.push_back({Revision::Kind::Keep, i, -1});
            continue;
        }
        const int32_t y = cv.token(i), y_new = s->argmax;
        const double c = s->p_max;
        if (c >= o_.tau_draft && y_new == y) {
            out.push_back({Revision::Kind::Keep, i, -1});
            p_current[static_cast<std::size_t>(i)] = c;
        } else if (c >= o_.tau_draft && y_new != cv.mask_id()) {
            out.push_back({Revision::Kind::Replace, i, y_new});
            token[static_cast<std::size_t>(i)] = y_new;
            p_current[static_cast<std::size_t>(i)] = c;
        } else {
            out.push_back({Revision::Kind::Remask, i, -1});
            masked[static_cast<std::size_t>(i)] = 1;
        }
    }

    // 2. Seed selection over U_t (§5.3). Nothing is chosen once decoding ends.
    seeds_.clear();
    bool any_masked = false;
    for (int p = cv.prompt_length(); p < n; ++p) any_masked = any_masked || masked[static_cast<std::size_t>(p)];
    if (!any_masked) return out;

    const std::vector<float> attention = backend_->last_layer_attention(0);
    const std::size_t m = rows_.size();
    if (attention.size() != m * static_cast<std::size_t>(n))
        throw Error("cover: backend '" + backend_->name() +
                    "' did not return the last layer's attention weights that the seed score needs");
    std::vector<int> row_of(static_cast<std::size_t>(n), -1);
    for (std::size_t r = 0; r < m; ++r) row_of[static_cast<std::size_t>(rows_[r])] = static_cast<int>(r);
    // A[q -> k] with q's attention read from the row that predicts position q.
    auto A = [&](int q, int k) {
        const int predictor = q - predictor_offset();
        const int r = predictor < 0 ? -1 : row_of[static_cast<std::size_t>(predictor)];
        return r < 0 ? 0.0 : static_cast<double>(attention[static_cast<std::size_t>(r) * n + k]);
    };
    std::vector<int32_t> masked_now, drafted;
    for (int p = cv.prompt_length(); p < n; ++p) {
        if (masked[static_cast<std::size_t>(p)]) masked_now.push_back(p);
        const PosEvent e = cv.event(p);
        if (e == PosEvent::Unmask || e == PosEvent::FlipFlop) drafted.push_back(p);
    }

    SeedScoreInput in;
    for (int p = cv.prompt_length(); p < n; ++p) {
        if (masked[static_cast<std::size_t>(p)]) continue;
        const RowStats* s = ctx.at(p);
        double pj = p_current[static_cast<std::size_t>(p)];
        if (std::isnan(pj) && s) pj = prob_of(*s, token[static_cast<std::size_t>(p)]);
        if (std::isnan(pj)) continue;  // no statistics this step: not a candidate
        double d_in = 0, d_out = 0;
        for (int32_t q : masked_now) d_in += A(q, p);
        for (int32_t i : drafted) d_out += A(p, i);
        in.unmasked.push_back(p);
        in.uncertainty.push_back(-std::log(std::max(pj, 1e-30)));
        in.d_in.push_back(d_in);
        in.d_out.push_back(d_out);
        // "A position cannot be selected as a seed in two consecutive steps."
        in.eligible.push_back(std::find(verifying_.begin(), verifying_.end(), p) == verifying_.end() ? 1 : 0);
    }
    seeds_ = choose_seeds(in, o_.max_seeds).seeds;
    // The seeds' K/V of this step's forward are what the next step injects.
    if (!seeds_.empty()) snapshot_->copy_rows_from(*cache_, seeds_);
    for (int32_t p : seeds_) out.push_back({Revision::Kind::Seed, p, -1});
    return out;
}

}  // namespace dlm
