#pragma once
// Semi-autoregressive blocks over the generated region, and "the current block" read from the
// canvas rather than from a step counter: the block holding the first masked position. Dynamic
// unmask rules (Fast-dLLM threshold) finish blocks after a data-dependent number of steps, so the
// cache policies that follow them (FreeCache, prefix / dual cache) must look at the canvas.
#include "decode/decode_canvas.h"

namespace dlm {

struct BlockLayout {
    int prompt_length = 0;
    int gen_length = 0;
    int block_length = 0;  // > 0 and dividing gen_length (checked by make())

    // Throws dlm::Error when block_length does not divide gen_length (names both values).
    static BlockLayout make(int prompt_length, int gen_length, int block_length, const char* who);

    int num_blocks() const { return block_length > 0 ? gen_length / block_length : 1; }
    int begin(int block) const { return prompt_length + block * block_length; }
    int end(int block) const { return begin(block) + block_length; }
    // The block holding the first masked generated position; the last block when none is masked.
    int current_block(const DecodeCanvas& canvas) const;
};

}  // namespace dlm
