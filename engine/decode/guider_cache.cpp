#include "decode/guider_cache.h"

#include <vector>

#include "model/hf_cache.h"
#include "model/model_config.h"
#include "util/error.h"

namespace dlm {

namespace {

namespace fs = std::filesystem;

// The folders a default guider may be: those in the models folder, a Hugging Face cache
// repository among them standing for its snapshot as it does when opened (model/hf_cache.h), so
// that in a cache the Qwen2.5-0.5B the user downloaded is found.
std::vector<fs::path> guider_candidates(const fs::path& models_folder) {
    std::vector<fs::path> out;
    std::error_code ec;
    for (fs::directory_iterator it(models_folder, fs::directory_options::skip_permission_denied, ec), end;
         !ec && it != end; it.increment(ec)) {
        std::error_code unreadable;  // one entry that cannot be read ends nothing but its own look
        if (it->is_directory(unreadable)) out.push_back(checkpoint_folder(it->path()));
    }
    return out;
}

}  // namespace

std::filesystem::path default_guider_folder(const std::filesystem::path& models_folder) {
    if (models_folder.empty()) return {};
    std::error_code ec;
    if (fs::is_directory(models_folder / kEmbeddedGuider, ec)) return (models_folder / kEmbeddedGuider).lexically_normal();
    fs::path best;
    long long best_params = 0;
    for (const fs::path& folder : guider_candidates(models_folder)) {
        const fs::path config = folder / "config.json";
        if (!fs::is_regular_file(config, ec)) continue;
        long long params = 0;
        try {
            const ModelConfig c = load_model_config(config);
            if (c.family != Family::Qwen2) continue;  // diffusion models and unknown architectures guide nothing
            params = parameter_count(c);
        } catch (const std::exception&) {
            continue;  // a folder this build cannot read is no candidate, not an error of the run
        }
        // Ties go to the first name, so that the choice does not hang on the listing's order.
        if (best.empty() || params < best_params || (params == best_params && folder < best))
            best = folder, best_params = params;
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
                        : "guided: no guider model where the model lies (" + models_folder_.string() +
                              ": neither tiny-ar nor a qwen2-family checkpoint such as Qwen2.5-0.5B); "
                              "set guided.guider=<its folder>");
    std::lock_guard lock(mutex_);
    if (auto it = loaded_.find(want); it != loaded_.end()) return it->second;
    std::error_code ec;
    if (!std::filesystem::is_directory(want, ec))
        throw Error("guided: guider folder " + want.string() +
                    " does not exist; set guided.guider=<folder of a qwen2-family checkpoint>");
    std::shared_ptr<const Checkpoint> checkpoint;
    try {
        checkpoint = std::make_shared<const Checkpoint>(load_checkpoint(want));
    } catch (const Error& e) {
        // Said as the guider's, not the model's: the run's own model loaded fine.
        throw Error("guided: the guider does not load: " + std::string(e.what()));
    }
    ++loads_;
    loaded_.emplace(want, checkpoint);
    return checkpoint;
}

int GuiderCache::loads() const {
    std::lock_guard lock(mutex_);
    return loads_;
}

}  // namespace dlm
