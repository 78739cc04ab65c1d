#include "decode/guider_cache.h"

#include "model/model_config.h"
#include "util/error.h"

namespace dlm {

std::filesystem::path default_guider_folder(const std::filesystem::path& models_folder) {
    namespace fs = std::filesystem;
    if (models_folder.empty()) return {};
    std::error_code ec;
    if (fs::is_directory(models_folder / "tiny-ar", ec)) return (models_folder / "tiny-ar").lexically_normal();
    fs::path best;
    long long best_params = 0;
    for (fs::directory_iterator it(models_folder, fs::directory_options::skip_permission_denied, ec), end;
         !ec && it != end; it.increment(ec)) {
        const fs::path config = it->path() / "config.json";
        std::error_code unreadable;  // one folder that cannot be read ends nothing but its own look
        if (!fs::is_regular_file(config, unreadable)) continue;
        long long params = 0;
        try {
            const ModelConfig c = load_model_config(config);
            if (c.family != Family::Qwen2) continue;  // diffusion models and unknown architectures guide nothing
            params = parameter_count(c);
        } catch (const std::exception&) {
            continue;  // a folder this build cannot read is no candidate, not an error of the run
        }
        // Ties go to the first name, so that the choice does not hang on the listing's order.
        if (best.empty() || params < best_params || (params == best_params && it->path() < best))
            best = it->path(), best_params = params;
    }
    return best.lexically_normal();
}

std::filesystem::path GuiderCache::default_dir() const {
    std::lock_guard lock(mutex_);
    if (!default_dir_) default_dir_ = default_guider_folder(models_folder_);
    return *default_dir_;
}

std::shared_ptr<const Checkpoint> GuiderCache::get(const std::filesystem::path& dir) {
    const std::filesystem::path want = (dir.empty() ? default_dir() : dir).lexically_normal();
    if (want.empty())
        throw Error(models_folder_.empty()
                        ? "guided: no guider model; set guided.guider=<folder of a qwen2-family checkpoint>"
                        : "guided: no guider model beside the model in " + models_folder_.string() +
                              " (neither tiny-ar nor a qwen2-family checkpoint such as Qwen2.5-0.5B); "
                              "set guided.guider=<its folder>");
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
