#pragma once
// Selection (dLLM-Cache-style partial recompute; the surrogate of the
// SureLock paper's Table 4): each step computes only a fraction k of the eligible rows and reads
// the others' K/V from the cache. Which rows:
//   1. rows that must run: rows never computed, rows whose token changed since they were last
//      computed (a reveal, remask or replace: their cached K/V describe the old input), and the
//      rows that produce a masked position's posterior (the unmask rule needs its statistics;
//      under shifted logits that is the row before it);
//   2. then the stalest rows (longest since last computed, then lower position) until
//      ceil(k * |eligible|) rows are planned.
// So k is a target: when the mandatory rows alone exceed it, all of them run. dLLM-Cache ranks its
// optional rows by V similarity, which needs a partial forward; staleness is the deterministic,
// forward-free stand-in. `refresh_every` > 0 recomputes everything every that many steps.
#include <cstdint>
#include <vector>

#include "decode/pool_compute.h"

namespace dlm {

struct SelectionOptions {
    double k = 0.8;        // SureLock Table 4
    int refresh_every = 0;  // 0: never a full refresh (after the first step)
    bool shifted_logits = false;
};

class SelectionCompute final : public PoolCompute {
public:
    explicit SelectionCompute(SelectionOptions o);
    std::string_view name() const override { return "selection"; }
    void plan_rows_within(int step, const DecodeCanvas& canvas, std::span<const uint8_t> eligible,
                          std::vector<int32_t>& rows) override;

private:
    SelectionOptions o_;
    std::vector<int> last_computed_;         // step, -1 = never
    std::vector<int32_t> token_at_compute_;  // input token when last computed
    std::vector<uint8_t> chosen_;
    std::vector<int32_t> optional_;
};

}  // namespace dlm
