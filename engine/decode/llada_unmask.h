#pragma once
// LLaDA's reference sampler (ML-GSAI/LLaDA generate.py):
// semi-autoregressive blocks, a linear per-block schedule with the remainder front-loaded
// (zero-reveal steps allowed), commits ranked by the sampled token's confidence (or uniformly
// random), nothing outside the current block ever committed.
#include <vector>

#include "decode/commit_order.h"
#include "decode/decode_settings.h"
#include "decode/unmask_policy.h"

namespace dlm {

struct LladaUnmaskOptions {
    int prompt_length = 0;
    int gen_length = 0;
    int block_length = 0;  // > 0, divides gen_length
    int steps = 0;         // a multiple of gen_length / block_length
    Remasking remasking = Remasking::LowConfidence;
    ConfidenceSource source = ConfidenceSource::Raw;
    EosDeferral eos;
};

class LladaUnmask final : public UnmaskPolicy {
public:
    explicit LladaUnmask(LladaUnmaskOptions o);  // throws dlm::Error on inconsistent options
    std::string_view name() const override { return "llada"; }
    int planned_steps() const override { return o_.steps; }
    int block_of_step(int step) const override { return step / steps_per_block_; }
    std::vector<Commit> choose(const StepContext& ctx) override;

    int num_blocks() const { return num_blocks_; }
    int steps_per_block() const { return steps_per_block_; }
    // Canvas range [begin, end) of a block.
    int block_begin(int block) const { return o_.prompt_length + block * o_.block_length; }
    int block_end(int block) const { return block_begin(block) + o_.block_length; }

private:
    LladaUnmaskOptions o_;
    int num_blocks_ = 1;
    int steps_per_block_ = 1;
    int schedule_block_ = -1;  // block the schedule below was computed for
    std::vector<int> schedule_;
    std::vector<RankedCandidate> scratch_;
};

}  // namespace dlm
