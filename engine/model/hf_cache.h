#pragma once
// The Hugging Face hub cache's layout, known in one place: a downloaded model lives in
// <hub>/models--<org>--<name>/snapshots/<revision>/, whose files are links into
// <hub>/models--<org>--<name>/blobs/. A model opened there is named after its repository
// (org/name), not after the revision folder, which is a commit hash.
#include <filesystem>
#include <optional>
#include <string>

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

// The name a model folder is shown by: a cache snapshot's repository id, else the folder's own
// name ("dir/" and "dir" alike).
std::string model_folder_name(const std::filesystem::path& folder);

}  // namespace dlm
