#include "model/hf_cache.h"

#include <algorithm>
#include <cctype>

#include "util/text_file.h"

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

fs::path checkpoint_folder(const fs::path& folder) {
    if (!is_hf_cache_repo(folder)) return folder;
    const fs::path snapshots = folder / "snapshots";
    std::error_code ec;
    // refs/main is one line, a commit hash; anything longer or with a separator is not followed,
    // and a refs/main that is no regular file (a FIFO) is not read.
    if (fs::exists(folder / "refs" / "main", ec)) {
        std::string revision;
        try {
            revision = read_text_file(folder / "refs" / "main", 256, "Hugging Face cache ref");
        } catch (const std::exception&) {
            revision.clear();  // unreadable: the snapshots decide
        }
        if (const auto eol = revision.find('\n'); eol != std::string::npos) revision.resize(eol);
        while (!revision.empty() && std::isspace(static_cast<unsigned char>(revision.back()))) revision.pop_back();
        const bool plain = !revision.empty() && revision.size() <= 128 && revision != "." && revision != ".." &&
                           revision.find_first_of("/\\") == std::string::npos;
        if (plain && fs::is_directory(snapshots / revision, ec)) return snapshots / revision;
    }
    const std::vector<fs::path> all = hf_cache_snapshots(folder);
    return all.size() == 1 ? all.front() : folder;
}

std::vector<fs::path> hf_cache_snapshots(const fs::path& repo_folder) {
    std::vector<fs::path> out;
    std::error_code ec;
    for (fs::directory_iterator it(repo_folder / "snapshots", ec), end; !ec && it != end; it.increment(ec)) {
        std::error_code unreadable;
        if (it->is_directory(unreadable)) out.push_back(it->path());
    }
    std::sort(out.begin(), out.end());
    return out;
}

fs::path fellow_models_folder(const fs::path& model_folder) {
    const fs::path folder = without_trailing_separator(fs::absolute(model_folder).lexically_normal());
    if (auto snapshot = hf_cache_snapshot(folder)) return snapshot->repo_folder.parent_path();
    return folder.parent_path();  // a repository's parent is the hub too
}

std::string model_folder_name(const fs::path& folder) {
    if (auto snapshot = hf_cache_snapshot(checkpoint_folder(folder))) return snapshot->repo_id;
    return without_trailing_separator(fs::absolute(folder).lexically_normal()).filename().string();
}

}  // namespace dlm
