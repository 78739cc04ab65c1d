#pragma once
// COVER's verification and seed selection (the COVER paper, §5).
//
// Each step t verifies the seed set S_{t-1} chosen at the end of step t-1 inside the drafting
// forward itself: the seeds are fed as [MASK], every other query reads their step t-1 K/V from a
// snapshot (KvOverride), and the row that predicts each seed sees the seed's masked-input K/V (the
// diagonal correction, Appendix B). That row is the seed's own, or under shifted logits (Dream)
// the row before it, so there the corrected column is the one after the diagonal: the same
// rank-one correction of one score. Then, with y~ = argmax and c~ = its raw probability at the seed:
//   KEEP    if y~ == y and c~ >= tau_draft,
//   REPLACE if y~ != y and c~ >= tau_draft (y~ written in place),
//   REMASK  otherwise.
// Seed selection for step t+1 over the unmasked generated positions U_t (after the update):
//   Score(j) = u(j)·(1 + d_in(j)) / (1 + d_out(j)),  u(j) = -log p_j(y_j),
//   d_in(j)  = sum over still-masked queries q of A[q -> j],
//   d_out(j) = sum over this step's drafts i of A[j -> i],
// with A the last layer's head-averaged attention of this step's forward, a position's row being
// the one that predicts it (under shifted logits the row before it); |S_t| =
// ceil(sqrt(n_t·pi_t)), n_t = |U_t|, pi_t = the fraction of scores strictly above their mean; the
// top scores are taken (ties: lower position), never a position that was a seed at this step. The
// seeds' K/V of this step are copied into the snapshot for the next forward. No seeds are chosen
// once nothing is masked (decoding ends).
//
// Decisions where the paper is silent (documented): seeds come from every unmasked generated
// position, including this step's drafts (S_t ⊆ U_t as written); a seed whose row was not computed
// is kept without verification; a seed whose argmax is the mask token is remasked.
#include <memory>
#include <vector>

#include "decode/revision_policy.h"

namespace dlm {

struct CoverOptions {
    double tau_draft = 0.8;
    bool closed_form = true;  // Appendix B's post-hoc correction; false: the backend recomputes seed rows
    int max_seeds = 0;        // 0 = the adaptive rule only; > 0 caps |S_t| (diagnostics)
    bool shifted_logits = false;  // the model's row i predicts token i + 1 (Dream)
};

// One seed-selection decision on plain arrays (the testable core of §5.3).
struct SeedScoreInput {
    std::vector<int32_t> unmasked;      // U_t, ascending
    std::vector<double> uncertainty;    // u(j) per entry of `unmasked`
    std::vector<double> d_in, d_out;    // per entry of `unmasked`
    std::vector<char> eligible;         // per entry: 0 = was a seed this step
};
// The scores and the chosen seeds (ascending positions).
struct SeedChoice {
    std::vector<double> scores;
    std::vector<int32_t> seeds;
    int target = 0;  // ceil(sqrt(n_t·pi_t)) before eligibility and max_seeds
};
SeedChoice choose_seeds(const SeedScoreInput& in, int max_seeds = 0);

class CoverRevision final : public RevisionPolicy {
public:
    explicit CoverRevision(CoverOptions o);
    std::string_view name() const override { return "cover"; }
    void attach(Backend& backend, KvCache& cache) override;
    void adjust_forward(int step, const DecodeCanvas& canvas, std::span<const int32_t> rows,
                        ForwardAdjustment& adjust) override;
    std::vector<Revision> revise(const StepContext& ctx) override;

    const std::vector<int32_t>& seeds() const { return seeds_; }  // S_t, verified at the next step

private:
    // The row that predicts position p is p - predictor_offset(): the seed's own row, or under
    // shifted logits the one before it. Both the override and the seed score read it here.
    int predictor_offset() const { return o_.shifted_logits ? 1 : 0; }

    CoverOptions o_;
    Backend* backend_ = nullptr;
    KvCache* cache_ = nullptr;
    std::unique_ptr<KvCache> snapshot_;  // the seeds' K/V of the step that chose them
    std::vector<int32_t> seeds_;         // chosen at the end of the last step
    std::vector<int32_t> verifying_;     // the seeds of the current step's forward
    std::vector<int32_t> rows_;          // the current forward's rows
    KvOverride override_;
};

}  // namespace dlm
