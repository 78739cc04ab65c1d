#pragma once
// A checkpoint folder opened for decoding: the checkpoint, the backend that runs it (CUDA when
// asked for and usable, else the CPU with a note saying why), its generation_config.json defaults
// and its Guided Diffusion guiders. The one way the app, the CLI and the tests open a model.
#include <filesystem>
#include <functional>
#include <memory>
#include <string>

#include "backends/backend_factory.h"
#include "decode/generation_defaults.h"
#include "decode/guider_cache.h"
#include "model/checkpoint.h"

namespace dlm {

struct DecodeLabels;

struct LoadOptions {
    BackendKind backend = BackendKind::Auto;
    int cpu_threads = 0;          // CPU backend threads; 0 = its default for the model's size
    bool diffusion_only = false;  // refuse a causal (autoregressive) model with a message
    // Polled between the costly stages; true = stop (load_model then returns an empty model).
    std::function<bool()> cancelled;
};

struct LoadedModel {
    // Heap-held so that the backend's references into the weights survive moving the struct.
    std::unique_ptr<Checkpoint> checkpoint;
    std::unique_ptr<Backend> backend;
    std::string name;          // the folder's name, for trace headers and reports
    std::string backend_note;  // why the backend is not the one asked for; empty when it is
    GenerationDefaults generation;
    // Guided Diffusion's guiders; the default is found beside the folder (default_guider_folder).
    std::unique_ptr<GuiderCache> guiders;

    explicit operator bool() const { return checkpoint && backend; }
    const ModelConfig& config() const { return checkpoint->config(); }
    // What a run of this model writes into its trace header besides its settings: the folder's
    // name, the user's prompt and the settings the model starts from.
    DecodeLabels run_labels(std::string prompt_text) const;
};

// Throws dlm::Error naming the folder when it does not exist or is not a folder, when the
// checkpoint does not load, or (diffusion_only) when it is a causal model.
LoadedModel load_model(const std::filesystem::path& dir, const LoadOptions& options = {});

// Moves the model to another backend. The old backend is released first: a model held twice
// may not fit where it fits once. If even the CPU backend cannot be made, throws with the model
// closed (backend null).
void switch_backend(LoadedModel& model, BackendKind kind, int cpu_threads = 0);

}  // namespace dlm
