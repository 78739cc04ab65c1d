#pragma once
// A checkpoint folder as the benchmarks load it: with its tokenizer when it ships one, otherwise
// (make-checkpoint's random weights) config and weights only, with token ids standing for text.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <vector>

#include "model/checkpoint.h"
#include "model/model_weights.h"
#include "text/tokenizer.h"

namespace dlm::cli {

struct BenchModel {
    std::unique_ptr<Checkpoint> checkpoint;  // when the folder ships a tokenizer
    std::optional<ModelWeights> bare;        // otherwise
    ModelConfig config;
    std::shared_ptr<const Tokenizer> tokenizer;  // the folder's, or ids only
    bool has_tokenizer = false;

    const ModelWeights& weights() const { return checkpoint ? checkpoint->weights : *bare; }
};

// Throws dlm::Error when the folder does not exist or does not load.
BenchModel load_bench_model(const std::filesystem::path& dir);

// `length` seeded ordinary ids (no mask, EOS or other special id, which would change the run).
std::vector<int32_t> synthetic_prompt(const ModelConfig& config, const Tokenizer& tokenizer, int length);

}  // namespace dlm::cli
