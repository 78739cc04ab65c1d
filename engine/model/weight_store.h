#pragma once
// All tensors of a checkpoint folder: model.safetensors, or the shards listed in
// model.safetensors.index.json (each shard mapped once).
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "model/safetensors_file.h"

namespace dlm {

class WeightStore {
public:
    // Opens `dir`. Throws dlm::Error when there is no checkpoint, the index is malformed, a shard
    // it names is missing, the index maps a tensor to a shard that lacks it, or a tensor name
    // appears in two shards.
    static std::shared_ptr<WeightStore> open(const std::filesystem::path& dir);
    // Opens exactly one safetensors file.
    static std::shared_ptr<WeightStore> open_file(const std::filesystem::path& file);

    const TensorView* find(const std::string& name) const;  // nullptr if absent
    const std::map<std::string, const TensorView*>& all() const { return index_; }
    std::size_t total_bytes() const;
    const std::vector<std::unique_ptr<SafetensorsFile>>& files() const { return files_; }

private:
    std::vector<std::unique_ptr<SafetensorsFile>> files_;
    std::map<std::string, const TensorView*> index_;
};

}  // namespace dlm
