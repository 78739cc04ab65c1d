#pragma once
// Writes a random-weight LLaDA checkpoint folder as published checkpoints look (config.json,
// safetensors shards, model.safetensors.index.json), so that benchmarks can run a model of real
// size (LLaDA-8B's dims: ~16 GB in bf16) on a machine that has no real weights. The values are
// those of compute/random_weights.h, generated on all cores and streamed to disk a chunk at a
// time: memory stays at a few hundred MB whatever the model size.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "bench/random_weights.h"
#include "model/dtype.h"
#include "model/model_config.h"

namespace dlm {

struct CheckpointGeneratorOptions {
    RandomLladaSpec model;
    DType dtype = DType::BF16;
    std::size_t shard_bytes = std::size_t(4) << 30;  // a shard is closed before it would pass this
    int threads = 0;                                  // 0 = all cores
    std::size_t chunk_elements = std::size_t(1) << 24;  // generated per step (two such buffers live)
    bool overwrite = false;  // replace the files of an earlier checkpoint in the folder
    // Called now and then with a line of progress; may be empty.
    std::function<void(const std::string&)> progress;
};

struct GeneratedCheckpoint {
    std::filesystem::path dir;
    ModelConfig config;
    std::vector<std::filesystem::path> files;  // shards (or model.safetensors), then the index, then config.json
    std::size_t shards = 0;
    std::size_t tensor_bytes = 0;
    long long parameters = 0;
    double seconds = 0;
};

// Writes the folder (created if needed); config.json is written last, so an interrupted run
// leaves no folder that loads. Throws dlm::Error when the folder already holds a checkpoint and
// `overwrite` is off, when the disk lacks the space (checked up front), or on any write failure.
GeneratedCheckpoint generate_random_checkpoint(const std::filesystem::path& dir, const CheckpointGeneratorOptions& options);

}  // namespace dlm
