#pragma once
// Guided Diffusion's guider checkpoints (small causal models), read from disk once and kept for
// the runs that follow. A loaded diffusion model owns one (backends/loaded_model.h) and hands it
// to every decode session, so a Run does not reload its guider.
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>

#include "model/checkpoint.h"

namespace dlm {

// get() may be called from several threads (eval decodes examples side by side).
class GuiderCache {
public:
    // `default_dir`: the guider a run uses when it names none (the embedded tiny-ar next to the
    // model's folder); empty = none.
    explicit GuiderCache(std::filesystem::path default_dir = {}) : default_dir_(std::move(default_dir)) {}

    // The checkpoint in `dir` (the default when empty), read on first use. Throws dlm::Error
    // naming the folder when it does not exist or does not load, or when no folder is known.
    std::shared_ptr<const Checkpoint> get(const std::filesystem::path& dir = {});
    const std::filesystem::path& default_dir() const { return default_dir_; }
    int loads() const;  // folders read so far

private:
    mutable std::mutex mutex_;
    std::filesystem::path default_dir_;
    std::map<std::filesystem::path, std::shared_ptr<const Checkpoint>> loaded_;
    int loads_ = 0;
};

}  // namespace dlm
