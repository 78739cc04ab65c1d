#include "model/embedded_models.h"

#include "model/hf_cache.h"

#include <string>
#include <system_error>
#include <vector>

namespace dlm {

namespace fs = std::filesystem;

bool holds_checkpoint(const fs::path& dir) {
    std::error_code ec;
    return fs::is_regular_file(checkpoint_folder(dir) / "config.json", ec);
}

fs::path running_program_dir() {
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    return ec ? fs::path() : exe.parent_path();
}

fs::path embedded_model_dir(std::string_view name, const fs::path& program_dir) {
    const std::string folder(name);
    std::vector<fs::path> candidates;
    if (!program_dir.empty()) {
        candidates.push_back(program_dir / ".." / "share" / "dlmscope" / "models" / folder);
        // build/app/dlmscope, build/tools/cli/dlmscope-cli, build/server/...: the checkout is a
        // few folders up.
        fs::path up = program_dir;
        for (int level = 0; level < 4 && up.has_parent_path() && up != up.root_path(); ++level) {
            up = up.parent_path();
            candidates.push_back(up / "resources" / "models" / folder);
        }
    }
    candidates.push_back(fs::path(DLM_SOURCE_DIR) / "resources" / "models" / folder);
    for (const fs::path& c : candidates)
        if (holds_checkpoint(c)) return c.lexically_normal();
    return candidates.back().lexically_normal();
}

}  // namespace dlm
