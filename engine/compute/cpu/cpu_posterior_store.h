#pragma once
// Raw posteriors per position in host memory, allocated lazily (only positions a strategy asks
// to keep cost V floats).
#include <cstdint>
#include <span>
#include <vector>

#include "compute/row_stats.h"

namespace dlm::cpu {

class CpuPosteriorStore final : public PosteriorStore {
public:
    explicit CpuPosteriorStore(int positions);

    bool has(int pos) const override;
    void erase(int pos) override;
    void clear() override;

    int positions() const { return static_cast<int>(rows_.size()); }
    // Empty span when nothing is stored for `pos`.
    std::span<const float> get(int pos) const;
    // Stores `posterior` for `pos` by swapping buffers with it (no copy, no allocation once warm).
    void put(int pos, std::vector<float>& posterior);

private:
    void check(int pos) const;
    std::vector<std::vector<float>> rows_;
    std::vector<uint8_t> has_;
};

}  // namespace dlm::cpu
