#include "decode/guider_cache.h"

#include "util/error.h"

namespace dlm {

std::shared_ptr<const Checkpoint> GuiderCache::get(const std::filesystem::path& dir) {
    const std::filesystem::path want = (dir.empty() ? default_dir_ : dir).lexically_normal();
    if (want.empty())
        throw Error("guided: no guider model; set guided.guider=<folder of a qwen2-family checkpoint> "
                    "(the default tiny-ar next to the model folder is not known here)");
    std::lock_guard lock(mutex_);
    if (auto it = loaded_.find(want); it != loaded_.end()) return it->second;
    std::error_code ec;
    if (!std::filesystem::is_directory(want, ec))
        throw Error("guided: guider folder " + want.string() +
                    " does not exist; set guided.guider=<folder of a qwen2-family checkpoint>");
    auto checkpoint = std::make_shared<const Checkpoint>(load_checkpoint(want));
    ++loads_;
    loaded_.emplace(want, checkpoint);
    return checkpoint;
}

int GuiderCache::loads() const {
    std::lock_guard lock(mutex_);
    return loads_;
}

}  // namespace dlm
