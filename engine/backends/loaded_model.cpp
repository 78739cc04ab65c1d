#include "backends/loaded_model.h"

#include "decode/decode_session.h"
#include "model/hf_cache.h"

#include "util/error.h"

namespace dlm {

LoadedModel load_model(const std::filesystem::path& requested, const LoadOptions& options) {
    // A Hugging Face cache repository stands for its snapshot: name, side files and the guider's
    // search all start from the folder read.
    const std::filesystem::path dir = checked_model_folder(requested);
    auto stop = [&] { return options.cancelled && options.cancelled(); };
    LoadedModel m;
    auto checkpoint = std::make_unique<Checkpoint>(load_checkpoint(dir));
    if (options.diffusion_only && !checkpoint->config().is_diffusion())
        throw Error("'" + dir.string() + "' is a " + std::string(family_name(checkpoint->config().family)) +
                    " model (autoregressive): dlmscope decodes masked diffusion models (llada, "
                    "dream); an autoregressive model can judge their drafts as the guider of the guided "
                    "strategy (guided.guider=" + dir.string() + ")");
    if (stop()) return {};
    CpuBackendOptions cpu;
    cpu.threads = options.cpu_threads;
    BackendChoice choice = make_backend(checkpoint->weights, options.backend, cpu);
    if (stop()) return {};
    m.checkpoint = std::move(checkpoint);
    m.backend = std::move(choice.backend);
    m.backend_note = std::move(choice.note);
    m.name = model_folder_name(dir);
    m.generation = read_generation_defaults(dir);
    m.guiders = std::make_unique<GuiderCache>(fellow_models_folder(dir));
    return m;
}

void switch_backend(LoadedModel& model, BackendKind kind, int cpu_threads) {
    if (!model.checkpoint) throw Error("no model is loaded");
    model.backend.reset();
    CpuBackendOptions cpu;
    cpu.threads = cpu_threads;
    BackendChoice choice = make_backend(model.checkpoint->weights, kind, cpu);
    model.backend = std::move(choice.backend);
    model.backend_note = std::move(choice.note);
}

DecodeLabels LoadedModel::run_labels(std::string prompt_text) const {
    return DecodeLabels{name, std::move(prompt_text), model_setting_changes(generation)};
}

}  // namespace dlm
