#pragma once
// A model whose weights live in memory this object owns (no checkpoint on disk): random
// LLaDA-family weights for the forward benchmark and for smoke tests of new backends.
#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

#include "model/model_weights.h"

namespace dlm {

struct RandomLladaSpec {
    int d_model = 512;
    int n_layers = 4;
    int n_heads = 8;
    int d_ff = 1536;  // LLaDA's 3 x d_model
    int vocab_size = 4096;
    int max_seq_len = 4096;
    uint64_t seed = 1;
};

// `weights` points into `views` / `buffers`: the object is neither copyable nor movable; keep it
// alive (through the unique_ptr) as long as any backend built from `weights`.
struct OwnedModelWeights {
    OwnedModelWeights() = default;
    OwnedModelWeights(const OwnedModelWeights&) = delete;
    OwnedModelWeights& operator=(const OwnedModelWeights&) = delete;

    ModelWeights weights;
    std::deque<TensorView> views;
    std::deque<std::vector<float>> buffers;
};

// F32 weights with fan-in scaled uniform values from the counter RNG (deterministic by seed).
std::unique_ptr<OwnedModelWeights> make_random_llada_weights(const RandomLladaSpec& spec = {});

}  // namespace dlm
