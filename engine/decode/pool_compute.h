#pragma once
// A compute policy that can plan within a pool of eligible rows. SureLock hands its non-locked
// rows to an inner policy this way, so that selection picks its fraction k *among the rows not
// yet locked* (SureLock paper, Table 4: "selecting the fixed fraction k = 0.8 of positions among
// positions not yet locked"). Policies that are not pool-aware are intersected with the pool.
#include <cstdint>
#include <span>
#include <vector>

#include "decode/compute_policy.h"

namespace dlm {

class PoolCompute : public ComputePolicy {
public:
    // `eligible[r]` != 0: row r may be computed. Every planned row must be eligible.
    virtual void plan_rows_within(int step, const DecodeCanvas& canvas, std::span<const uint8_t> eligible,
                                  std::vector<int32_t>& rows) = 0;
    void plan_rows(int step, const DecodeCanvas& canvas, std::vector<int32_t>& rows) override {
        all_.assign(static_cast<std::size_t>(canvas.size()), 1);
        plan_rows_within(step, canvas, all_, rows);
    }

private:
    std::vector<uint8_t> all_;
};

}  // namespace dlm
