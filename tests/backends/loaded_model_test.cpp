// The model loader (backends/loaded_model.h): the one way the app and the CLI open a folder.
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <string>

#include "backends/loaded_model.h"
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

TEST(LoadedModel, RefusesWhatItCannotDecode) {
    EXPECT_NE(error_of([] { load_model(kModels / "no-such-model"); }).find("does not exist"), std::string::npos);
    EXPECT_NE(error_of([] { load_model(kModels / "tiny-mdlm" / "config.json"); }).find("is not a folder"),
              std::string::npos);
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
