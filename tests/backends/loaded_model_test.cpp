// The model loader (backends/loaded_model.h): the one way the app and the CLI open a folder.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "backends/loaded_model.h"
#include "model/embedded_models.h"
#include "util/error.h"

namespace dlm {
namespace {

const std::filesystem::path kModels = std::filesystem::path(DLM_SOURCE_DIR) / "resources" / "models";

std::string error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const Error& e) {
        return e.what();
    }
    return {};
}

TEST(LoadedModel, OpensTheEmbeddedModelWithItsGuiderBesideIt) {
    LoadedModel m = load_model(kModels / "tiny-mdlm", LoadOptions{BackendKind::Cpu, 1});
    ASSERT_TRUE(m);
    EXPECT_EQ(m.name, "tiny-mdlm");
    EXPECT_EQ(m.backend->name(), "cpu");
    EXPECT_TRUE(m.backend_note.empty());
    EXPECT_TRUE(m.config().is_diffusion());
    ASSERT_NE(m.guiders, nullptr);
    EXPECT_EQ(m.guiders->default_dir(), (kModels / "tiny-ar").lexically_normal());
    EXPECT_EQ(m.guiders->get()->dir.filename(), "tiny-ar");
    EXPECT_EQ(m.guiders->get()->dir.filename(), "tiny-ar");
    EXPECT_EQ(m.guiders->loads(), 1);  // read once

    // "folder/" names the same model.
    EXPECT_EQ(load_model(kModels.string() + "/tiny-mdlm/", LoadOptions{BackendKind::Cpu, 1}).name, "tiny-mdlm");

    switch_backend(m, BackendKind::Cpu, 1);
    EXPECT_TRUE(m);
}

TEST(LoadedModel, AModelInAHuggingFaceCacheIsNamedAfterItsRepository) {
    // <hub>/models--org--name/snapshots/<revision>: the revision folder is a commit hash, which
    // would title every run and trace; the repository id is what the user downloaded.
    const std::filesystem::path hub = std::filesystem::temp_directory_path() / "dlm-loaded-model-hub";
    std::filesystem::remove_all(hub);
    const auto snapshot = hub / "models--org--tiny-mdlm" / "snapshots" / "8f3c2a9e";
    std::filesystem::create_directories(snapshot.parent_path());
    std::filesystem::copy(kModels / "tiny-mdlm", snapshot);
    EXPECT_EQ(load_model(snapshot, LoadOptions{BackendKind::Cpu, 1}).name, "org/tiny-mdlm");
    EXPECT_EQ(load_model(snapshot.string() + "/", LoadOptions{BackendKind::Cpu, 1}).name, "org/tiny-mdlm");
    // The repository folder opens the snapshot its refs/main names, as the hub resolves it.
    std::filesystem::create_directories(hub / "models--org--tiny-mdlm" / "refs");
    std::ofstream(hub / "models--org--tiny-mdlm" / "refs" / "main") << "8f3c2a9e";
    std::filesystem::create_directories(snapshot.parent_path() / "0000old");
    const LoadedModel repo = load_model(hub / "models--org--tiny-mdlm", LoadOptions{BackendKind::Cpu, 1});
    EXPECT_EQ(repo.name, "org/tiny-mdlm");
    EXPECT_EQ(repo.checkpoint->dir, snapshot);
    EXPECT_TRUE(holds_checkpoint(hub / "models--org--tiny-mdlm"));  // the app's folder dialog opens it
    std::filesystem::remove_all(hub);
}

TEST(LoadedModel, RefusesWhatItCannotDecode) {
    EXPECT_NE(error_of([] { load_model(kModels / "no-such-model"); }).find("does not exist"), std::string::npos);
    const std::string file = error_of([] { load_model(kModels / "tiny-mdlm" / "config.json"); });
    EXPECT_NE(file.find("is not a folder; the checkpoint is the folder that holds it: " + (kModels / "tiny-mdlm").string()),
              std::string::npos) << file;
    LoadOptions diffusion;
    diffusion.diffusion_only = true;
    const std::string refused = error_of([&] { load_model(kModels / "tiny-ar", diffusion); });
    EXPECT_NE(refused.find("autoregressive"), std::string::npos) << refused;
    EXPECT_NE(refused.find("guided.guider="), std::string::npos) << refused;  // where it does fit
    EXPECT_TRUE(load_model(kModels / "tiny-ar", LoadOptions{BackendKind::Cpu, 1}));  // eval scores it as a guider
}

TEST(LoadedModel, ACancelledLoadLeavesNothing) {
    LoadOptions o{BackendKind::Cpu, 1};
    o.cancelled = [] { return true; };
    EXPECT_FALSE(load_model(kModels / "tiny-mdlm", o));
}

}  // namespace
}  // namespace dlm
