#pragma once
// Saber (zhaoyMa/Saber decoding.py::generate_with_saber): adaptive
// acceleration by mean-confidence drafting, and backtracking remasking by confidence drops.
//
// Per step, over the generation slots up to the end of the current block (the block cursor moves
// on when its slots up to its end hold no mask; it never moves back):
//   conf(i) = p(x0_i) under the raw posterior for every slot (decoded ones too), x0 the sampled
//   token; delta(i) = conf(i) - conf_prev(i) (+inf when either is missing or not finite).
//   Drafting: tau = mean of the confidences the currently decoded slots had when they were
//   committed (1 when none); commit every masked slot with conf > tau, or the top n when fewer
//   pass. fix = the number committed.
//   Backtracking (only while the block still has a mask after the commits): remask the
//   r = min(max(floor(n/2), ceil(fix/8)), fix - 1) decoded slots with the most negative delta
//   (this step's commits included; their delta was measured while masked). Net progress >= 1.
#include <memory>
#include <vector>

#include "decode/block_layout.h"
#include "decode/revision_policy.h"
#include "decode/unmask_policy.h"

namespace dlm {

struct SaberOptions {
    BlockLayout blocks;
    int n = 2;                        // minimum tokens per step
    int max_steps_per_block = 1024;   // the reference's iteration cap
};

// State shared by Saber's drafting and backtracking halves.
struct SaberState {
    explicit SaberState(SaberOptions o) : o(o) {}
    SaberOptions o;
    int block = 0;
    std::vector<double> conf_prev;   // per canvas position; NaN = none
    std::vector<double> delta;       // this step's delta per position
    std::vector<double> final_conf;  // confidence when last committed; NaN = never
    int fix = 0;
    int block_end() const { return blocks_end(block); }
    int blocks_end(int b) const { return o.blocks.end(b); }
};

class SaberUnmask final : public UnmaskPolicy {
public:
    explicit SaberUnmask(std::shared_ptr<SaberState> state);
    std::string_view name() const override { return "saber"; }
    int planned_steps() const override { return st_->o.max_steps_per_block * st_->o.blocks.num_blocks(); }
    bool done(int step, const DecodeCanvas& canvas) const override {
        return canvas.masks_left() == 0 || step >= planned_steps();
    }
    int block_of_step(int) const override { return st_->block; }
    std::vector<Commit> choose(const StepContext& ctx) override;

private:
    std::shared_ptr<SaberState> st_;
};

class SaberRevision final : public RevisionPolicy {
public:
    explicit SaberRevision(std::shared_ptr<SaberState> state) : st_(std::move(state)) {}
    std::string_view name() const override { return "saber"; }
    std::vector<Revision> revise(const StepContext& ctx) override;

    // r for a step that committed `fix` tokens with minimum n.
    static int backtrack_count(int n, int fix);

private:
    std::shared_ptr<SaberState> st_;
};

}  // namespace dlm
