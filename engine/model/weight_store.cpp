#include "model/weight_store.h"

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "util/json_document.h"
#include "util/error.h"
#include "util/input_limits.h"
#include "util/text_file.h"

namespace dlm {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr const char* kIndexName = "model.safetensors.index.json";
constexpr const char* kSingleName = "model.safetensors";

// The shard name must stay inside the checkpoint folder (an index is data, not a path to trust).
bool is_plain_relative(const std::string& name) {
    if (name.empty()) return false;
    fs::path p(name);
    if (p.is_absolute()) return false;
    for (const auto& part : p) {
        if (part == "..") return false;
    }
    return true;
}

}  // namespace

std::shared_ptr<WeightStore> WeightStore::open_file(const fs::path& file) {
    auto store = std::make_shared<WeightStore>();
    store->files_.push_back(std::make_unique<SafetensorsFile>(file));
    for (const auto& [name, view] : store->files_.back()->tensors()) store->index_[name] = &view;
    return store;
}

std::shared_ptr<WeightStore> WeightStore::open(const fs::path& dir) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) throw Error(dir.string() + ": not a folder (expected a checkpoint folder)");

    const fs::path index_path = dir / kIndexName;
    if (!fs::exists(index_path, ec)) {
        if (fs::exists(dir / kSingleName, ec)) return open_file(dir / kSingleName);
        std::vector<fs::path> candidates;
        for (const auto& entry : fs::directory_iterator(dir, ec)) {
            if (entry.is_regular_file() && entry.path().extension() == ".safetensors") candidates.push_back(entry.path());
        }
        if (candidates.size() == 1) return open_file(candidates.front());
        if (candidates.empty()) throw Error("no safetensors checkpoint in " + dir.string());
        std::string names;
        std::sort(candidates.begin(), candidates.end());
        for (const auto& c : candidates) names += (names.empty() ? "" : ", ") + c.filename().string();
        throw Error(dir.string() + ": several .safetensors files (" + names + ") but no " + kIndexName +
                    " saying how they belong together");
    }

    // Sharded checkpoint: {"metadata": {...}, "weight_map": {tensor: shard file}}.
    const std::string where = index_path.string();
    const std::string index_text = read_text_file(index_path, limits::kShardIndexBytes, "shard index");
    const json index = parse_json_document(index_text, where);
    if (!index.is_object()) throw Error(where + ": expected a JSON object");
    if (!index.contains("weight_map")) throw Error(where + ": missing \"weight_map\"");
    const json& weight_map = index.at("weight_map");
    if (!weight_map.is_object()) throw Error(where + ": \"weight_map\" must be an object {tensor: shard file}");
    if (weight_map.empty()) throw Error(where + ": \"weight_map\" is empty");

    std::map<std::string, std::string> shard_of;  // tensor -> shard file name
    std::map<std::string, std::string> first_user;  // shard -> one tensor that lives there (for messages)
    for (const auto& [tensor, shard] : weight_map.items()) {
        if (!shard.is_string()) {
            throw Error(where + ": weight_map entry for \"" + tensor + "\" must be a file name, found " + shard.dump());
        }
        const std::string name = shard.get<std::string>();
        if (name.find('\0') != std::string::npos) {
            // A NUL would cut the name when the file is opened (s.safetensors\0junk -> s.safetensors).
            throw Error(where + ": shard name for tensor \"" + tensor + "\" contains a NUL character");
        }
        if (!is_plain_relative(name)) {
            throw Error(where + ": shard \"" + name + "\" (for tensor \"" + tensor +
                        "\") is not a file name inside the checkpoint folder");
        }
        shard_of[tensor] = name;
        first_user.emplace(name, tensor);
    }

    auto store = std::make_shared<WeightStore>();
    std::map<std::string, const SafetensorsFile*> by_shard;
    std::map<std::string, std::string> owner;  // tensor -> shard that holds it
    for (const auto& [shard, tensor] : first_user) {  // each shard opened once, in name order
        const fs::path shard_path = dir / shard;
        if (!fs::exists(shard_path, ec)) {
            throw Error(where + ": shard " + shard + " is missing from " + dir.string() + " (it should hold \"" +
                        tensor + "\")");
        }
        store->files_.push_back(std::make_unique<SafetensorsFile>(shard_path));
        const SafetensorsFile& file = *store->files_.back();
        by_shard[shard] = &file;
        // Every tensor of every shard is indexed, listed in weight_map or not: the files are the
        // truth and the map only a directory. Tensors the family does not use end up in
        // ModelWeights::unexpected, so nothing is dropped silently.
        for (const auto& [name, view] : file.tensors()) {
            auto [it, inserted] = owner.emplace(name, shard);
            if (!inserted) {
                throw Error(dir.string() + ": tensor \"" + name + "\" appears in two shards, " + it->second +
                            " and " + shard);
            }
            store->index_[name] = &view;
        }
    }
    for (const auto& [tensor, shard] : shard_of) {
        if (by_shard.at(shard)->tensors().count(tensor) == 0) {
            auto it = owner.find(tensor);
            throw Error(where + ": maps \"" + tensor + "\" to " + shard + ", but that shard has no such tensor" +
                        (it != owner.end() ? " (it is in " + it->second + ")" : std::string()));
        }
    }
    return store;
}

const TensorView* WeightStore::find(const std::string& name) const {
    auto it = index_.find(name);
    return it == index_.end() ? nullptr : it->second;
}

std::size_t WeightStore::total_bytes() const {
    std::size_t total = 0;
    for (const auto& [name, view] : index_) total += view->nbytes;
    return total;
}

}  // namespace dlm
