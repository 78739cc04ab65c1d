#pragma once
// Tensors bound by each family's exact names, shapes checked
// against the config.
#include <memory>
#include <string>
#include <vector>

#include "model/model_config.h"
#include "model/weight_store.h"

namespace dlm {

struct LayerWeights {
    const TensorView* attn_norm = nullptr;  // [d]
    const TensorView* wq = nullptr;         // [H*hd, d]
    const TensorView* wk = nullptr;         // [Hkv*hd, d]
    const TensorView* wv = nullptr;         // [Hkv*hd, d]
    const TensorView* wo = nullptr;         // [d, H*hd]
    const TensorView* bq = nullptr;         // [H*hd] or nullptr
    const TensorView* bk = nullptr;         // [Hkv*hd] or nullptr
    const TensorView* bv = nullptr;         // [Hkv*hd] or nullptr
    const TensorView* ffn_norm = nullptr;   // [d]
    const TensorView* w_gate = nullptr;     // [d_ff, d]  (SiLU applied)
    const TensorView* w_up = nullptr;       // [d_ff, d]
    const TensorView* w_down = nullptr;     // [d, d_ff]
};

struct ModelWeights {
    ModelConfig config;
    std::shared_ptr<WeightStore> store;
    const TensorView* embed = nullptr;       // [V, d]
    std::vector<LayerWeights> layers;
    const TensorView* final_norm = nullptr;  // [d]
    const TensorView* lm_head = nullptr;     // [V, d]; == embed when tied
    std::vector<std::string> unexpected;     // tensors in the files that the family does not use
};

// Throws dlm::Error naming the tensor (and its file) that is missing or has the wrong shape.
// Tensors the family does not use are listed in `unexpected` (never silently dropped).
ModelWeights bind_weights(const ModelConfig& config, std::shared_ptr<WeightStore> store);

}  // namespace dlm
