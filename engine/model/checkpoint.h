#pragma once
// A checkpoint folder as published: config.json + safetensors (+ index) + tokenizer.
#include <filesystem>
#include <memory>

#include "model/model_weights.h"
#include "text/chat_template.h"
#include "text/tokenizer.h"

namespace dlm {

struct Checkpoint {
    std::filesystem::path dir;
    ModelWeights weights;
    std::shared_ptr<Tokenizer> tokenizer;
    ChatTemplate chat_template;  // as recognised from the folder's published template text
    // Disagreements between the folder's files that loading resolved (one line each): e.g. config.json's
    // bos_token_id naming another token than tokenizer_config.json's bos_token. inspect prints them.
    std::vector<std::string> warnings;
    const ModelConfig& config() const { return weights.config; }
};

// The folder a model path given by the user stands for (a Hugging Face cache repository: its
// snapshot, model/hf_cache.h). Throws dlm::Error when the path does not exist or is not a folder;
// a checkpoint's own file (its config.json, a shard) names the folder that holds it.
std::filesystem::path checked_model_folder(const std::filesystem::path& path);

// A Hugging Face cache repository folder loads its snapshot (model/hf_cache.h: checkpoint_folder);
// `dir` of the result is the folder read. Throws dlm::Error with a message naming the folder and
// what is wrong.
Checkpoint load_checkpoint(const std::filesystem::path& dir);

}  // namespace dlm
