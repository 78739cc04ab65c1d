#pragma once
// A read-only view of one tensor inside a memory-mapped checkpoint file.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "model/dtype.h"

namespace dlm {

struct TensorView {
    std::string name;
    DType dtype = DType::F32;
    std::vector<int64_t> shape;
    const std::byte* data = nullptr;  // points into the mapping; valid while the store lives
    std::size_t nbytes = 0;
    std::string file;  // the shard it lives in, for error messages

    int64_t numel() const {
        int64_t n = 1;
        for (int64_t d : shape) n *= d;
        return n;
    }
    int64_t dim(std::size_t i) const { return shape.at(i); }
};

}  // namespace dlm
