#pragma once
// WINO's narrow-out verification (Feng-Hong/WINO-DLLM LLaDA/decoding.py::decoding_wino).
// The wide-in drafting is DraftUnmask with Cap::Wino.
//
// Every forward carries a shadow block: one [MASK] column per position of the current block,
// appended after the canvas at its twin's RoPE position, seeing every canvas column except its
// twin (and the whole shadow block); no canvas row sees it. Shadow row j therefore predicts
// "what belongs at j if j alone were masked", inside the drafting forward.
// After the step's commits, when more than one token was accepted this step:
//   every position of the current block that was decoded before this step (this step's commits
//   are verified from the next step on) whose shadow probability of its current token is below
//   threshold_back goes back to [MASK]; if there are last_accept or more such positions, only
//   the last_accept - 1 with the lowest probability do (ties: lower position first).
// last_accept starts at 30 in every block and then is the previous step's accept count, which
// bounds the steps of a block by block_length + 29.
#include <cstdint>
#include <utility>
#include <vector>

#include "decode/block_layout.h"
#include "decode/revision_policy.h"

namespace dlm {

struct WinoOptions {
    BlockLayout blocks;
    double threshold_back = 0.9;
};

class WinoRevision final : public RevisionPolicy {
public:
    static constexpr int kInitialLastAccept = 30;  // the reference's value at every block start

    explicit WinoRevision(WinoOptions o);  // throws dlm::Error on invalid options
    std::string_view name() const override { return "wino"; }
    int shadow_capacity() const override { return o_.blocks.block_length; }
    void adjust_forward(int step, const DecodeCanvas& canvas, std::span<const int32_t> rows,
                        ForwardAdjustment& adjust) override;
    std::vector<Revision> revise(const StepContext& ctx) override;

    // The narrow-out rule on plain values: `verified` = (position, shadow probability of its
    // current token) of the positions decoded before this step. Returns the positions to remask,
    // ascending. No remask unless accepted > 1.
    static std::vector<int32_t> narrow_out(std::vector<std::pair<int32_t, double>> verified, double threshold_back,
                                           int accepted, int last_accept);

    int last_accept() const { return last_accept_; }

private:
    WinoOptions o_;
    int block_ = -1;
    int last_accept_ = kInitialLastAccept;
    std::vector<int32_t> decoded_;  // block positions decoded at this step's forward
};

}  // namespace dlm
