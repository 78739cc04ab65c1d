#pragma once
// The models that ship with dlmscope (resources/models/ in the source tree): where a program finds
// them, so that the app, the CLI and the tools open the same folder when none is named.
#include <filesystem>
#include <string_view>

namespace dlm {

// The model the app opens and the CLI runs when no folder is named.
inline constexpr std::string_view kDefaultEmbeddedModel = "tiny-mdlm";

// Whether `dir` holds a checkpoint to open: it has a config.json, or is a Hugging Face cache
// repository whose snapshot has one (the app's folder check, the embedded models' search).
bool holds_checkpoint(const std::filesystem::path& dir);

// The folder of the running executable (/proc/self/exe); empty where that cannot be read.
std::filesystem::path running_program_dir();

// The folder of the embedded model `name` for a program in `program_dir`, the first that holds a
// config.json of: <program_dir>/../share/dlmscope/models/<name> (installed), resources/models/<name>
// in a folder above program_dir (a build inside a checkout), the source tree this was built from.
// When none does, the last: loading it then says what is missing.
std::filesystem::path embedded_model_dir(std::string_view name = kDefaultEmbeddedModel,
                                         const std::filesystem::path& program_dir = running_program_dir());

}  // namespace dlm
