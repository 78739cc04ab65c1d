#include "model/hf_cache.h"

namespace dlm {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kRepoPrefix = "models--";

fs::path without_trailing_separator(const fs::path& p) {
    return p.has_filename() || !p.has_parent_path() ? p : p.parent_path();
}

}  // namespace

bool is_hf_cache_repo(const fs::path& folder) {
    const std::string name = without_trailing_separator(folder).filename().string();
    return name.size() > kRepoPrefix.size() && name.compare(0, kRepoPrefix.size(), kRepoPrefix) == 0;
}

std::optional<HfCacheSnapshot> hf_cache_snapshot(const fs::path& folder) {
    const fs::path snapshot = without_trailing_separator(fs::absolute(folder).lexically_normal());
    const fs::path snapshots = snapshot.parent_path();
    if (snapshot.filename().empty() || snapshots.filename() != "snapshots") return std::nullopt;
    const fs::path repo = snapshots.parent_path();
    if (!is_hf_cache_repo(repo)) return std::nullopt;
    // The hub writes a repository id org/name as models--org--name; a name has no "--" of its own.
    const std::string encoded = repo.filename().string().substr(kRepoPrefix.size());
    const auto sep = encoded.find("--");
    const std::string id = sep == std::string::npos ? encoded : encoded.substr(0, sep) + "/" + encoded.substr(sep + 2);
    return HfCacheSnapshot{repo, id, snapshot.filename().string()};
}

std::string model_folder_name(const fs::path& folder) {
    if (auto snapshot = hf_cache_snapshot(folder)) return snapshot->repo_id;
    return without_trailing_separator(fs::absolute(folder).lexically_normal()).filename().string();
}

}  // namespace dlm
