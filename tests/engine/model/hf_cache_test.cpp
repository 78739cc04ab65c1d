// The Hugging Face cache layout (model/hf_cache.h): which folders are snapshots, and the names
// model folders are shown by.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include "model/checkpoint.h"
#include "model/hf_cache.h"
#include "support/scratch_dir.h"

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
    // Where the model dialog opens: beside the model, or in the hub among the other repositories.
    EXPECT_EQ(fellow_models_folder("/models/LLaDA-8B-Instruct/"), fs::path("/models"));
    EXPECT_EQ(fellow_models_folder("/hub/models--org--name/snapshots/abc"), fs::path("/hub"));
    EXPECT_EQ(fellow_models_folder("/hub/models--org--name"), fs::path("/hub"));
}

// A repository folder stands for the snapshot refs/main names, as the hub resolves it; a refs/main
// that is no plain name is not followed out of the cache.
TEST(HfCache, ARepositoryFolderOpensItsSnapshot) {
    test::ScratchDir hub("dlm-hf-cache");
    const fs::path repo = hub / "models--GSAI-ML--LLaDA-8B-Instruct";
    EXPECT_EQ(checkpoint_folder(repo), repo);  // no snapshots yet
    fs::create_directories(repo / "snapshots" / "aaa111");
    EXPECT_EQ(checkpoint_folder(repo), repo / "snapshots" / "aaa111");  // the only one
    EXPECT_EQ(model_folder_name(repo), "GSAI-ML/LLaDA-8B-Instruct");
    fs::create_directories(repo / "snapshots" / "bbb222");
    EXPECT_EQ(checkpoint_folder(repo), repo);  // two, and nothing says which
    fs::create_directories(repo / "refs");
    test::write_file(repo / "refs" / "main", "bbb222");
    EXPECT_EQ(checkpoint_folder(repo), repo / "snapshots" / "bbb222");
    test::write_file(repo / "refs" / "main", "aaa111\n");  // as the hub writes it, or with a newline
    EXPECT_EQ(checkpoint_folder(repo), repo / "snapshots" / "aaa111");
    fs::create_directories(hub / "elsewhere");
    test::write_file(repo / "refs" / "main", "../../elsewhere");
    EXPECT_EQ(checkpoint_folder(repo), repo);
    test::write_file(repo / "refs" / "main", "ccc333");  // a revision not downloaded
    EXPECT_EQ(checkpoint_folder(repo), repo);
    fs::remove(repo / "refs" / "main");
    ASSERT_EQ(::mkfifo((repo / "refs" / "main").c_str(), 0600), 0);  // not read: it would block
    EXPECT_EQ(checkpoint_folder(repo), repo);
    // What cannot be resolved says what to open.
    try {
        load_checkpoint(repo);
        ADD_FAILURE() << "loaded a repository with two snapshots and no usable refs/main";
    } catch (const std::exception& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find("refs/main names no snapshot"), std::string::npos) << m;
        EXPECT_NE(m.find("{aaa111, bbb222}"), std::string::npos) << m;
    }
    // Folders that are no repository are themselves.
    EXPECT_EQ(checkpoint_folder(hub / "elsewhere"), hub / "elsewhere");
    EXPECT_EQ(checkpoint_folder(repo / "snapshots" / "aaa111"), repo / "snapshots" / "aaa111");
}

}  // namespace
}  // namespace dlm
