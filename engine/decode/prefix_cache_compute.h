#pragma once
// Fast-dLLM's KV caches (NVlabs/Fast-dLLM llada/generate.py).
// Each block starts with a refresh step: a full forward over the canvas (which also decodes).
// The following steps of the block reuse the cache:
//   prefix: compute the current block and everything after it; the prefix (prompt + completed
//           blocks) is read from the cache;
//   dual:   compute the current block only; the prefix and the masked suffix are read from the
//           cache (the suffix's K/V are those of the refresh step, stale by design).
// The cache is rebuilt at every block boundary (issue #19: reuse across blocks hurts quality);
// `refresh_every` > 0 adds a refresh every that many steps inside a block. The current block is
// read from the canvas (the first masked position), so the refresh follows dynamic rules (the
// threshold rule finishes a block after a data-dependent number of steps). Under shifted logits
// (Dream) the computed window starts one row before the block: that row predicts the block's
// first position (Fast-dLLM's Dream code commits that token from the refresh forward instead).
#include "decode/block_layout.h"
#include "decode/compute_policy.h"

namespace dlm {

enum class KvCacheMode { Prefix, Dual };

class PrefixCacheCompute final : public ComputePolicy {
public:
    PrefixCacheCompute(BlockLayout blocks, KvCacheMode mode, bool shifted_logits, int refresh_every = 0)
        : blocks_(blocks), mode_(mode), shifted_(shifted_logits), refresh_every_(refresh_every) {}
    std::string_view name() const override { return mode_ == KvCacheMode::Dual ? "dual-cache" : "prefix-cache"; }
    void plan_rows(int step, const DecodeCanvas& canvas, std::vector<int32_t>& rows) override;
    void add_counters(std::map<std::string, double>& counters) const override;

    bool refreshed_last_step() const { return refreshed_; }

private:
    BlockLayout blocks_;
    KvCacheMode mode_;
    bool shifted_ = false;
    int refresh_every_ = 0;
    int block_ = -1;           // block of the previous step
    int steps_in_block_ = 0;   // steps since the block's refresh
    bool refreshed_ = false;
};

}  // namespace dlm
