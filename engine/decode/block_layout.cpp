#include "decode/block_layout.h"

#include <string>

#include "util/error.h"

namespace dlm {

BlockLayout BlockLayout::make(int prompt_length, int gen_length, int block_length, const char* who) {
    if (gen_length <= 0 || block_length <= 0 || gen_length % block_length != 0)
        throw Error(std::string(who) + ": block_length " + std::to_string(block_length) +
                    " must be positive and divide gen_length " + std::to_string(gen_length));
    return {prompt_length, gen_length, block_length};
}

int BlockLayout::current_block(const DecodeCanvas& canvas) const {
    for (int p = prompt_length; p < prompt_length + gen_length && p < canvas.size(); ++p)
        if (canvas.is_masked(p)) return (p - prompt_length) / block_length;
    return num_blocks() - 1;
}

}  // namespace dlm
