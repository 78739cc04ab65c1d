#pragma once
// WINO's shadow block on the session's side: the [MASK] columns a revision policy asks for after
// the canvas (ShadowRequest), at the RoPE positions of their twin canvas positions, each seeing
// every canvas column except its twin (compute/backend.h ShadowBlock). They are computed in the
// step's forward and always go through the LM head; their statistics reach revise() per twin
// position (StepContext::shadow). Buffers are kept across steps: a step allocates nothing.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "compute/backend.h"
#include "compute/row_stats.h"
#include "decode/decode_canvas.h"

namespace dlm {

// What a revision policy asks for: `count` shadow columns twinning canvas positions
// [twin_first, twin_first + count). count 0 = none.
struct ShadowRequest {
    int twin_first = -1;
    int count = 0;
};

class ShadowColumns {
public:
    // A canvas of `canvas_size` positions; at most `capacity` columns will be asked for.
    void reset(int canvas_size, int capacity);
    int capacity() const { return capacity_; }

    // Checks `request` (from the policy named in `who`) against the canvas and, when it asks for
    // columns, extends the forward item with them. Throws dlm::Error for a request the session
    // cannot honour. Returns this step's column count.
    int extend(const ShadowRequest& request, const std::string& who, const DecodeCanvas& canvas, int batch_items,
               bool shifted_logits, ForwardItem& item);
    int count() const { return request_.count; }

    // After the forward: each shadow row's statistics, scoring the token its twin holds. `base` is
    // the step's request for the canvas rows (sampling, seed); the shadow rows follow the canvas's
    // `head_rows` head rows.
    void score(Backend& backend, const RowStatsRequest& base, int head_rows, const DecodeCanvas& canvas);
    // Indexed by canvas position: the twin's shadow statistics, nullptr where there is none.
    std::span<const RowStats* const> by_position() const { return by_pos_; }

private:
    int n_ = 0, capacity_ = 0;
    ShadowRequest request_;
    std::vector<int32_t> tokens_, rows_, head_rows_, position_ids_;
    std::vector<int32_t> head_index_, positions_, query_;
    std::vector<RowStats> stats_;
    std::vector<const RowStats*> by_pos_;
};

}  // namespace dlm
