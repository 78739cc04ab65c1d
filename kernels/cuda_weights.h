#pragma once
// The model on the device, in the layout the CUDA forward wants: bf16 matrices with Q|K|V fused
// into one [q_dim + 2 kv_dim][d] matrix and gate|up into one [2 d_ff][d] matrix per layer (one
// GEMM each), fp32 norms and biases, the embedding table and the LM head in bf16 (a tied head
// is the embedding table itself).
#include <cuda_bf16.h>

#include <cstddef>
#include <vector>

#include "cuda_stream.h"
#include "device_buffer.h"
#include "model/model_weights.h"

namespace dlm::cuda {

struct CudaLayerWeights {
    DeviceBuffer<__nv_bfloat16> qkv;      // [q_dim + 2 kv_dim][d]
    DeviceBuffer<__nv_bfloat16> wo;       // [d][q_dim]
    DeviceBuffer<__nv_bfloat16> gate_up;  // [2 d_ff][d]
    DeviceBuffer<__nv_bfloat16> down;     // [d][d_ff]
    DeviceBuffer<float> attn_norm;        // [d]
    DeviceBuffer<float> ffn_norm;         // [d]
    DeviceBuffer<float> qkv_bias;         // [q_dim + 2 kv_dim]; empty when the family has none
};

class CudaWeights {
public:
    // Checks every tensor, then that the device has room for all of them (throws dlm::Error with
    // the bytes needed and free before allocating anything), then uploads layer by layer. On any
    // failure everything allocated so far is freed.
    CudaWeights(const ModelWeights& weights, const CudaStream& stream);

    // Device bytes the weights of `weights` take in this layout.
    static std::size_t device_bytes(const ModelWeights& weights);

    const CudaLayerWeights& layer(int l) const { return layers_[static_cast<std::size_t>(l)]; }
    const __nv_bfloat16* embedding() const { return embed_.get(); }
    const __nv_bfloat16* lm_head() const { return head_.capacity() ? head_.get() : embed_.get(); }
    const float* final_norm() const { return final_norm_.get(); }
    bool tied_head() const { return head_.capacity() == 0; }
    std::size_t bytes() const { return bytes_; }

private:
    std::vector<CudaLayerWeights> layers_;
    DeviceBuffer<__nv_bfloat16> embed_;  // [V][d]
    DeviceBuffer<__nv_bfloat16> head_;   // [V][d]; empty when tied to the embedding
    DeviceBuffer<float> final_norm_;     // [d]
    std::size_t bytes_ = 0;
};

}  // namespace dlm::cuda
