// The Hugging Face cache layout (model/hf_cache.h): which folders are snapshots, and the names
// model folders are shown by.
#include <gtest/gtest.h>

#include "model/hf_cache.h"

namespace dlm {
namespace {

namespace fs = std::filesystem;

TEST(HfCache, ASnapshotIsKnownByItsRepositoryFolder) {
    const auto s = hf_cache_snapshot("/hub/models--Dream-org--Dream-v0-Instruct-7B/snapshots/05334cb9");
    ASSERT_TRUE(s);
    EXPECT_EQ(s->repo_folder, fs::path("/hub/models--Dream-org--Dream-v0-Instruct-7B"));
    EXPECT_EQ(s->repo_id, "Dream-org/Dream-v0-Instruct-7B");
    EXPECT_EQ(s->revision, "05334cb9");
    EXPECT_EQ(hf_cache_snapshot("/hub/models--Dream-org--Dream-v0-Instruct-7B/snapshots/05334cb9/")->revision, "05334cb9");
    EXPECT_EQ(hf_cache_snapshot("/hub/models--gpt2/snapshots/abc")->repo_id, "gpt2");  // a repository without an org

    EXPECT_FALSE(hf_cache_snapshot("/hub/models--org--name/snapshots"));     // the snapshots folder itself
    EXPECT_FALSE(hf_cache_snapshot("/hub/models--org--name/blobs/abc"));     // not a snapshot
    EXPECT_FALSE(hf_cache_snapshot("/backups/snapshots/2026-12-01"));        // a folder that is only called so
    EXPECT_FALSE(hf_cache_snapshot("/hub/datasets--org--name/snapshots/abc"));  // not a model
    EXPECT_FALSE(hf_cache_snapshot("/hub/models--/snapshots/abc"));
    EXPECT_TRUE(is_hf_cache_repo("/hub/models--org--name/"));
    EXPECT_FALSE(is_hf_cache_repo("/hub/my-models--x"));
}

TEST(HfCache, FoldersAreNamedByRepositoryOrByThemselves) {
    EXPECT_EQ(model_folder_name("/hub/models--Qwen--Qwen2.5-0.5B-Instruct/snapshots/7ae557604adf67be50417f59c2c2f167def9a775"),
              "Qwen/Qwen2.5-0.5B-Instruct");
    EXPECT_EQ(model_folder_name("/models/LLaDA-8B-Instruct"), "LLaDA-8B-Instruct");
    EXPECT_EQ(model_folder_name("/models/LLaDA-8B-Instruct/"), "LLaDA-8B-Instruct");
    EXPECT_EQ(model_folder_name("/models/./LLaDA-8B-Instruct/../tiny-mdlm"), "tiny-mdlm");
    EXPECT_EQ(model_folder_name("/backups/snapshots/2026-12-01"), "2026-12-01");
}

}  // namespace
}  // namespace dlm
