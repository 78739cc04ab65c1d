#pragma once
// The model's weights as fp32 for the CPU forward. F32 tensors are used in place (straight
// from the memory map); BF16/F16 matrices are converted once and kept while they fit the
// budget, and the rest are converted on every forward into a scratch buffer, one layer at a
// time, so a 16 GB BF16 checkpoint runs in far less than its 32 GB fp32 size.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "compute/cpu/cpu_thread_pool.h"
#include "model/model_weights.h"

namespace dlm::cpu {

struct LayerF32 {
    const float* attn_norm = nullptr;
    const float* wq = nullptr;
    const float* wk = nullptr;
    const float* wv = nullptr;
    const float* wo = nullptr;
    const float* bq = nullptr;  // nullptr when the family has no bias
    const float* bk = nullptr;
    const float* bv = nullptr;
    const float* ffn_norm = nullptr;
    const float* w_gate = nullptr;
    const float* w_up = nullptr;
    const float* w_down = nullptr;
};

class CpuWeights {
public:
    // `weights` (and the memory its views point into) must outlive this object.
    CpuWeights(const ModelWeights& weights, std::size_t cache_bytes, ThreadPool& pool);

    // fp32 pointers for layer `l`; a streamed layer is converted now and stays valid until the
    // next call.
    const LayerF32& layer(int l);
    void embed_row(int32_t token, float* out) const;
    const float* final_norm() const { return final_norm_; }
    // logits[m, V] = x[m, d] · headᵀ.
    void lm_head(const float* x, int m, float* logits);

    std::size_t resident_bytes() const { return resident_bytes_; }
    int streamed_matrices() const { return streamed_; }

private:
    // A weight matrix: `ready` points at fp32 data (mapped or converted), or it is null and the
    // matrix is converted into a scratch buffer when needed.
    struct Matrix {
        const TensorView* view = nullptr;
        const float* ready = nullptr;
        std::vector<float> owned;
    };
    struct Layer {
        Matrix wq, wk, wv, wo, w_gate, w_up, w_down;
        std::vector<float> small;  // norms and biases, always fp32 resident
        LayerF32 f32;              // pointers for fully ready layers
        bool streamed = false;
    };

    const float* prepare_small(const TensorView* t, std::vector<float>& storage, std::size_t offset);
    void plan(Matrix& m, std::size_t& budget);
    const float* materialize(const Matrix& m, std::vector<float>& scratch);
    void convert(const TensorView& t, std::size_t first, std::size_t count, float* dst);

    const ModelWeights& weights_;
    ThreadPool& pool_;
    int d_ = 0, vocab_ = 0;
    std::vector<Layer> layers_;
    Matrix head_;
    std::vector<float> final_norm_storage_;
    const float* final_norm_ = nullptr;
    LayerF32 streamed_view_;
    std::vector<std::vector<float>> scratch_;  // one buffer per matrix of a streamed layer
    std::vector<float> head_scratch_;
    std::size_t resident_bytes_ = 0;
    int streamed_ = 0;
};

}  // namespace dlm::cpu
