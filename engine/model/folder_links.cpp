#include "model/folder_links.h"

#include <string>

#include "model/hf_cache.h"
#include "util/error.h"

namespace dlm {

namespace fs = std::filesystem;

namespace {

bool inside(const fs::path& path, const fs::path& root) {
    auto r = root.begin(), p = path.begin();
    for (; r != root.end(); ++r, ++p)
        if (p == path.end() || *p != *r) return false;
    return true;
}

}  // namespace

void check_folder_links(const fs::path& dir) {
    std::error_code ec;
    const fs::path root = fs::canonical(dir, ec);
    if (ec) return;  // the caller reports a missing folder itself
    // A Hugging Face cache snapshot links into <repo>/blobs.
    fs::path allowed = root;
    if (auto snapshot = hf_cache_snapshot(root)) allowed = snapshot->repo_folder;
    for (const auto& entry : fs::directory_iterator(root, ec)) {
        if (!entry.is_symlink(ec)) continue;
        const fs::path target = fs::weakly_canonical(entry.path(), ec);
        if (ec) throw Error(entry.path().string() + ": a link that cannot be followed (" + ec.message() + ")");
        if (!inside(target, allowed))
            throw Error(entry.path().string() + ": a link to " + target.string() + ", outside the model folder " +
                        root.string() + "; dlmscope reads only files inside it (or, in a Hugging Face cache, "
                        "inside the repository's cache folder)");
    }
}

}  // namespace dlm
