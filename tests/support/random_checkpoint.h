#pragma once
// Tiny random checkpoints with each family's real tensor names and a real config.json, for the
// compute, strategy and decoder tests. Values are drawn from the counter RNG, so a given
// (family, options) pair always produces the same bytes on every platform.
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "model/dtype.h"
#include "model/model_config.h"
#include "model/model_weights.h"
#include "support/scratch_dir.h"
#include "support/safetensors_writer.h"

namespace dlm::test {

struct RandomCheckpointOptions {
    int d_model = 32;
    int n_layers = 2;
    int n_heads = 4;
    int n_kv_heads = 0;  // 0: family default (llada: n_heads, i.e. MHA; dream and qwen2: n_heads / 2)
    int d_ff = 48;
    int vocab_size = 64;
    int max_seq_len = 256;
    double rope_theta = 10000.0;
    double rms_eps = 1e-5;
    DType dtype = DType::F32;  // storage dtype of every tensor
    uint64_t seed = 1;
    // Special ids; -1 picks vocab_size - 1 (mask, diffusion families only) and vocab_size - 2 (eos).
    int mask_token_id = -1;
    int eos_token_id = -1;
};

struct RandomCheckpoint {
    std::filesystem::path dir;
    std::filesystem::path config_json;
    std::filesystem::path weights_file;  // model.safetensors
    ModelConfig config;                  // what config.json describes (built here, not parsed)
    std::map<std::string, TensorData> tensors;          // as written
    std::map<std::string, std::vector<float>> values;   // rounded through the dtype, as read back

    // Rounded values of one tensor; throws std::out_of_range naming a tensor that is not there.
    const std::vector<float>& value(const std::string& name) const;
};

// Writes config.json and model.safetensors into `dir` (created if needed).
RandomCheckpoint write_random_checkpoint(const std::filesystem::path& dir, Family family,
                                         const RandomCheckpointOptions& options = {});

// The engine's own loading path: load_model_config + WeightStore::open + bind_weights.
ModelWeights load_random_checkpoint(const RandomCheckpoint& checkpoint);

// A random checkpoint in its own scratch folder, loaded through the engine: the base of the
// backend tests' fixtures (which add the backends they compare).
struct RandomModel {
    explicit RandomModel(const std::string& tag = "dlm-random-model") : dir(tag) {}
    ScratchDir dir;
    RandomCheckpoint ck;
    ModelWeights weights;
    const ModelConfig& config() const { return weights.config; }
};

// Writes the checkpoint into model.dir and loads it into model.ck / model.weights.
void load_random_model(RandomModel& model, Family family, const RandomCheckpointOptions& options = {});

// Deterministic canvas tokens in [0, vocab): a fixed pattern, shifted by `salt`.
std::vector<int32_t> pattern_canvas(int n, int vocab, uint32_t salt = 0);
// first, first + 1, ..., first + count - 1.
std::vector<int32_t> row_range(int first, int count);


}  // namespace dlm::test
