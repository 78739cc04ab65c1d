#pragma once
// FreeCache (FlashDLM): the K/V of the prompt
// and of every completed block are frozen; each step computes only the active window, the current
// block and every later one. The first step computes the whole canvas (it fills the cache). A
// block's K/V are frozen from the forward of its last step, in which its last tokens were still
// masks: the approximation FlashDLM builds in (its `save_cache` on the block's last step).
// Under shifted logits (Dream) the window starts one row earlier, at the last position before the
// block (FlashDLM feeds x[block_start - 1:]), because that row predicts the block's first position.
// Completed positions outside the window are shown as `frozen`.
#include "decode/block_layout.h"
#include "decode/compute_policy.h"

namespace dlm {

class FreeCacheCompute final : public ComputePolicy {
public:
    FreeCacheCompute(BlockLayout blocks, bool shifted_logits) : blocks_(blocks), shifted_(shifted_logits) {}
    std::string_view name() const override { return "freecache"; }
    void plan_rows(int step, const DecodeCanvas& canvas, std::vector<int32_t>& rows) override;
    std::vector<StateChange> after_step(const StepContext& ctx) override;

    // First row of the active window for the canvas as it is now.
    int window_start(const DecodeCanvas& canvas) const;

private:
    BlockLayout blocks_;
    bool shifted_ = false;
    bool filled_ = false;  // the first forward (all rows) has run
};

}  // namespace dlm
