#pragma once
// The model's weights as the CPU forward reads them. When the fp32 panels of every matrix fit the
// budget together (and no matrix is wider than kPanelMaxCols), all of them are packed once at load
// (panel_gemm.h: the fastest forward).
// Otherwise F32 tensors are used in place (straight from the memory map), BF16/F16 matrices are
// converted to fp32 once at load when all of them fit the budget, and else each GEMM widens its
// matrix from the memory map tile by tile (WeightGemm), so a 16 GB BF16 checkpoint runs in 16 GB.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "compute/cpu/cpu_thread_pool.h"
#include "compute/cpu/weight_gemm.h"
#include "model/model_weights.h"

namespace dlm::cpu {

struct LayerMatrices {
    const float* attn_norm = nullptr;
    const float* ffn_norm = nullptr;
    const float* bq = nullptr;  // nullptr when the family has no bias
    const float* bk = nullptr;
    const float* bv = nullptr;
    WeightMatrix wq, wk, wv, wo, w_gate, w_up, w_down;
};

class CpuWeights {
public:
    // `weights` (and the memory its views point into) must outlive this object. `available` is
    // the memory the machine can give (bytes; 0 = unknown): fp32 copies are made only within it,
    // and weights that cannot fit it are refused with a dlm::Error naming what they need.
    CpuWeights(const ModelWeights& weights, std::size_t fp32_copy_budget, double available, ThreadPool& pool);

    const LayerMatrices& layer(int l) const { return layers_.at(static_cast<std::size_t>(l)); }
    void embed_row(int32_t token, float* out) const;
    const float* final_norm() const { return final_norm_; }
    const WeightMatrix& lm_head() const { return head_; }

    // Working memory a forward needs besides `weight_bytes` of weights (activations, tiles, a few
    // hundred rows of logits), counted in the memory check: a margin, not a bound.
    static double working_memory(double weight_bytes);

    // Bytes of fp32 copies (packed or not) made at load (0 when the matrices are widened per forward).
    std::size_t converted_bytes() const { return converted_bytes_; }
    // Matrices widened from the memory map on every forward.
    int widened_matrices() const { return widened_; }

private:
    const float* prepare_small(const TensorView* t, std::vector<float>& storage, std::size_t offset);
    WeightMatrix bind(const TensorView* t, int rows, int cols, bool pack, bool convert);

    const ModelWeights& weights_;
    ThreadPool& pool_;
    int d_ = 0;
    std::vector<LayerMatrices> layers_;
    std::vector<std::vector<float>> small_;      // norms and biases, always fp32
    std::vector<std::vector<float>> converted_;  // fp32 copies (packed or not) made at load
    WeightMatrix head_;
    const float* final_norm_ = nullptr;
    std::size_t converted_bytes_ = 0;
    int widened_ = 0;
};

}  // namespace dlm::cpu
