#pragma once
// An independent, deliberately naive double-precision forward of the three families, written
// from the model descriptions over a random checkpoint's
// rounded tensor values: plain loops, no BLAS, every position computed. The backends are
// tested against it.
#include <cstdint>
#include <span>
#include <vector>

#include "support/random_checkpoint.h"

namespace dlm::test {

// Columns whose keys/values every query reads from an earlier forward instead of computing
// them now (COVER's override; also models a K/V cache holding stale columns). With
// self_sees_fresh, the query at position i still sees listed column i + verifier_offset fresh.
struct ReferenceOverride {
    std::vector<int32_t> positions;
    std::vector<std::vector<double>> k, v;  // [layer] -> [position][kv_dim], post-RoPE keys
    bool self_sees_fresh = true;
    int verifier_offset = 0;
};

// An explicit attention layout: RoPE position of every row (empty = the row index) and a boolean
// visibility matrix (empty = every row sees every column, or the causal prefix), written out
// position by position so it does not share code with the backends' ShadowBlock rule.
struct ReferenceLayout {
    std::vector<int32_t> position_ids;  // [n]
    std::vector<uint8_t> visible;       // [query][key], n * n
};

struct ReferenceOutput {
    int n = 0, vocab = 0, heads = 0;
    std::vector<double> logits;             // [n][vocab], every row
    std::vector<std::vector<double>> k, v;  // [layer] -> [n][kv_dim] computed this forward
    std::vector<std::vector<double>> lse;   // [layer] -> [n][heads], log-sum-exp of scaled scores

    double logit(int row, int token) const { return logits[static_cast<std::size_t>(row) * vocab + token]; }
    double layer_lse(int layer, int row, int head) const {
        return lse[static_cast<std::size_t>(layer)][static_cast<std::size_t>(row) * heads + head];
    }
};

ReferenceOutput reference_forward(const RandomCheckpoint& checkpoint, std::span<const int32_t> tokens,
                                  const ReferenceOverride* override_kv = nullptr,
                                  const ReferenceLayout* layout = nullptr);

}  // namespace dlm::test
