#pragma once
// Guided Diffusion's guider checkpoints (small causal models), read from disk once and kept for
// the runs that follow. A loaded diffusion model owns one (backends/loaded_model.h) and hands it
// to every decode session, so a Run does not reload its guider.
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>

#include "model/checkpoint.h"

namespace dlm {

// The embedded guider's folder name: the default wherever it lies beside a model.
inline constexpr const char* kEmbeddedGuider = "tiny-ar";

// The guider a run that names none uses, among the folders in `models_folder` (where a model's
// fellow models lie: model/hf_cache.h, fellow_models_folder): tiny-ar, the embedded guider, when
// it is there; else the causal (qwen2-family) checkpoint there with the fewest parameters, as
// Qwen2.5-0.5B beside Dream-7B (FlashDLM's pairing); in a Hugging Face cache, each repository's
// snapshot.
// Folders whose config.json does not load are passed over. Empty when there is none.
std::filesystem::path default_guider_folder(const std::filesystem::path& models_folder);

// get() may be called from several threads (eval decodes examples side by side).
class GuiderCache {
public:
    // `models_folder`: where the default guider is looked for (default_guider_folder), on the
    // first run that needs it; empty = no default.
    explicit GuiderCache(std::filesystem::path models_folder = {}) : models_folder_(std::move(models_folder)) {}

    // The checkpoint in `dir` (the default when empty), read on first use. Throws dlm::Error
    // naming the folder when it does not exist or does not load, or when no folder is known.
    std::shared_ptr<const Checkpoint> get(const std::filesystem::path& dir = {});
    // The default guider's folder (empty: none was found); looked for once.
    std::filesystem::path default_dir() const;
    int loads() const;  // folders read so far

private:
    mutable std::mutex mutex_;
    std::filesystem::path models_folder_;
    mutable std::optional<std::filesystem::path> default_dir_;
    std::map<std::filesystem::path, std::shared_ptr<const Checkpoint>> loaded_;
    int loads_ = 0;
};

}  // namespace dlm
