#include "decode/llada_unmask.h"

#include <string>

#include "decode/transfer_schedule.h"
#include "util/counter_rng.h"
#include "util/error.h"

namespace dlm {

LladaUnmask::LladaUnmask(LladaUnmaskOptions o) : o_(o) {
    if (o_.gen_length <= 0 || o_.block_length <= 0 || o_.steps <= 0)
        throw Error("llada sampler: gen_length, block_length and steps must be positive");
    if (o_.gen_length % o_.block_length != 0)
        throw Error("llada sampler: gen_length " + std::to_string(o_.gen_length) + " is not a multiple of block_length " +
                    std::to_string(o_.block_length));
    num_blocks_ = o_.gen_length / o_.block_length;
    if (o_.steps % num_blocks_ != 0)
        throw Error("llada sampler: steps " + std::to_string(o_.steps) + " is not a multiple of the " +
                    std::to_string(num_blocks_) + " blocks");
    steps_per_block_ = o_.steps / num_blocks_;
}

std::vector<Commit> LladaUnmask::choose(const StepContext& ctx) {
    const int block = block_of_step(ctx.step);
    const int local = ctx.step % steps_per_block_;
    const int begin = block_begin(block), end = block_end(block);
    // The reference counts the block's masks once, when the block starts.
    if (block != schedule_block_) {
        int masks = 0;
        for (int p = begin; p < end; ++p) masks += ctx.canvas.is_masked(p) ? 1 : 0;
        schedule_ = llada_transfer_counts(masks, steps_per_block_);
        schedule_block_ = block;
    }
    const int k = schedule_[static_cast<std::size_t>(local)];
    if (k == 0) return {};

    scratch_.clear();
    // Only the current block competes: the reference sets every later position's confidence to
    // -inf, and the EOS deferral must not push a commit out of the block either.
    collect_block_candidates(ctx, begin, end, o_.remasking, o_.source, o_.eos, scratch_);
    return take_best(scratch_, k);
}

}  // namespace dlm
