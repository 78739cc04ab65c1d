#pragma once
// The Hugging Face hub cache's layout, known in one place: a downloaded model lives in
// <hub>/models--<org>--<name>/snapshots/<revision>/, whose files are links into
// <hub>/models--<org>--<name>/blobs/, and refs/main holds the revision the hub fetched last.
// A model opened there is named after its repository (org/name), not after the revision folder,
// which is a commit hash.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace dlm {

struct HfCacheSnapshot {
    std::filesystem::path repo_folder;  // <hub>/models--<org>--<name>
    std::string repo_id;                // org/name
    std::string revision;               // the snapshot folder's name
};

// True for a repository folder of the cache: a name that starts with "models--".
bool is_hf_cache_repo(const std::filesystem::path& folder);

// The snapshot `folder` is, when it is one (its parent is "snapshots" in a repository folder).
std::optional<HfCacheSnapshot> hf_cache_snapshot(const std::filesystem::path& folder);

// The checkpoint folder `folder` stands for: a repository folder of the cache (models--org--name)
// stands for the snapshot its refs/main names (the revision the hub fetched last), else its only
// snapshot; any other folder for itself. So `--model ~/.cache/huggingface/hub/models--org--name`
// opens the model as the hub would. A refs/main that is no plain folder name is not followed.
std::filesystem::path checkpoint_folder(const std::filesystem::path& folder);

// The snapshot folders of a repository folder, by name.
std::vector<std::filesystem::path> hf_cache_snapshots(const std::filesystem::path& repo_folder);

// The folder a model's fellow models lie in: for a cache snapshot or repository, the hub (where the
// other repositories are); else the folder's parent. Absolute.
std::filesystem::path fellow_models_folder(const std::filesystem::path& model_folder);

// The name a model folder is shown by: a cache snapshot's repository id, else the folder's own
// name ("dir/" and "dir" alike).
std::string model_folder_name(const std::filesystem::path& folder);

}  // namespace dlm
