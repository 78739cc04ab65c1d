#pragma once
// Random LLaDA-family weights: the tensor list (real LLaDA names, fan-in scaled uniform values
// from the counter RNG), a model built from it in memory (the forward benchmark, smoke tests of
// new backends), and the dimension presets `dlmscope-cli make-checkpoint` writes to disk
// (compute/checkpoint_generator.h). Memory and disk hold the same values for the same spec.
#include <cstdint>
#include <deque>
#include <memory>
#include <span>
#include <string>
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
    // Special ids; -1 picks vocab_size - 1 (mask) and vocab_size - 2 (eos).
    int mask_token_id = -1;
    int eos_token_id = -1;
};

// The named dimension presets: "llada-8b" (LLaDA-8B's exact shapes: d 4096, 32 layers, 32 heads,
// d_ff 12288, 126464 embedding rows, context 4096, its mask and eos ids), "medium" (d 2048,
// 16 layers, ~1B parameters), "small" (the CPU forward bench's model) and "tiny" (d 64, 2 layers:
// tests). Throws dlm::Error naming the presets for an unknown name.
RandomLladaSpec random_llada_preset(const std::string& name);
std::vector<std::string> random_llada_preset_names();

// The config a spec describes (LLaDA family, rope_theta 500000, untied head). Throws dlm::Error
// for impossible dimensions.
ModelConfig random_llada_config(const RandomLladaSpec& spec);

// One tensor of the random model: element i is center + spread * (2u - 1), with u the draw
// (rng_id, 0, i) of CounterRng(seed, rng_stream::kStrategy).
struct RandomTensor {
    std::string name;
    std::vector<int64_t> shape;
    float center = 0.0f;
    float spread = 0.0f;
    uint64_t rng_id = 0;
    int64_t numel() const;
};

// Every tensor, in RNG order: embedding, each block's attn_norm, q/k/v/attn_out, ff_norm,
// ff_proj, up_proj, ff_out, then ln_f and the untied head (model.transformer.ff_out).
std::vector<RandomTensor> random_llada_tensors(const RandomLladaSpec& spec);

// Elements [first, first + out.size()) of a random tensor (any slice, any thread: the counter RNG
// makes every element a pure function of its index).
void fill_random_tensor(const RandomTensor& tensor, uint64_t seed, int64_t first, std::span<float> out);

// The same uniform values for tests' own tensor layouts: center + spread * (2u - 1).
void fill_random_uniform(uint64_t seed, uint64_t rng_id, int64_t first, float center, float spread, std::span<float> out);

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
