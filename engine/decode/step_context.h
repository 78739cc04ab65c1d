#pragma once
// What a policy sees of one step: the canvas after the forward pass and the statistics of every
// generated position whose row went through the LM head (design.md §7).
#include <cstdint>
#include <span>

#include "compute/row_stats.h"
#include "decode/decode_canvas.h"

namespace dlm {

struct StepContext {
    int step = 0;
    uint64_t seed = 0;
    const DecodeCanvas& canvas;
    // Indexed by canvas position; nullptr where no statistics were computed this step (prompt
    // positions, rows a compute policy skipped). For shifted-logit models (Dream) the entry of
    // position i was computed from output row i-1: policies never deal with the shift.
    std::span<const RowStats* const> stats;
    // Indexed by canvas position: the statistics of the shadow row whose twin is that position
    // (decode/shadow_columns.h; WINO), with query_p = the shadow's raw probability of the
    // token the twin held at the forward. nullptr where there is no shadow row.
    std::span<const RowStats* const> shadow = {};

    const RowStats* at(int pos) const {
        return pos >= 0 && pos < static_cast<int>(stats.size()) ? stats[static_cast<std::size_t>(pos)] : nullptr;
    }
    const RowStats* shadow_at(int pos) const {
        return pos >= 0 && pos < static_cast<int>(shadow.size()) ? shadow[static_cast<std::size_t>(pos)] : nullptr;
    }
};

}  // namespace dlm
