// Where a program finds the embedded models: installed beside it, in the checkout it was built
// in, or the source tree it was built from.
#include <gtest/gtest.h>

#include "model/embedded_models.h"
#include "support/model_test_support.h"

namespace dlm {
namespace {

namespace fs = std::filesystem;

void make_model(const fs::path& dir) {
    fs::create_directories(dir);
    test::write_file(dir / "config.json", "{}");
}

TEST(EmbeddedModels, AnInstalledProgramFindsItsShareFolder) {
    test::TempDir root;
    make_model(root.path() / "usr" / "share" / "dlmscope" / "models" / "tiny-mdlm");
    fs::create_directories(root.path() / "usr" / "bin");
    EXPECT_EQ(embedded_model_dir("tiny-mdlm", root.path() / "usr" / "bin"),
              (root.path() / "usr" / "share" / "dlmscope" / "models" / "tiny-mdlm").lexically_normal());
}

TEST(EmbeddedModels, ABuildInsideACheckoutFindsItsResources) {
    test::TempDir root;
    make_model(root.path() / "checkout" / "resources" / "models" / "tiny-ar");
    const fs::path cli = root.path() / "checkout" / "build" / "tools" / "cli";
    fs::create_directories(cli);
    EXPECT_EQ(embedded_model_dir("tiny-ar", cli), (root.path() / "checkout" / "resources" / "models" / "tiny-ar").lexically_normal());
}

TEST(EmbeddedModels, ElsewhereTheSourceTreeItWasBuiltFrom) {
    test::TempDir root;  // a program somewhere with no models near it
    const fs::path found = embedded_model_dir("tiny-mdlm", root.path());
    EXPECT_EQ(found, (fs::path(DLM_SOURCE_DIR) / "resources" / "models" / "tiny-mdlm").lexically_normal());
    EXPECT_TRUE(fs::exists(found / "config.json"));
    // A name no folder holds: the source tree's path, for the load to say what is missing.
    EXPECT_EQ(embedded_model_dir("no-such-model", root.path()).filename(), "no-such-model");
    EXPECT_FALSE(running_program_dir().empty());  // this test binary's folder
}

}  // namespace
}  // namespace dlm
