// The acceptance test of the embedded default models: the shipped checkpoints, loaded through the
// same loader that opens LLaDA-8B / Qwen2.5, reproduce the logits PyTorch computed at export time
// (tools/train/golden.py) within 1e-3. The training milestones kept in tools/train/milestones/ are
// held to the same, so that what a later run continues from is what was measured.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "compute/cpu/cpu_backend.h"
#include "model/checkpoint.h"

namespace dlm {
namespace {

namespace fs = std::filesystem;

void check_golden(const fs::path& dir, std::optional<Family> expected_family) {
    const std::string model_name = dir.filename().string();
    const fs::path golden_path = dir / "golden.json";
    // The embedded models ship with the repository: one missing is a broken checkout, not a skip.
    ASSERT_TRUE(fs::exists(dir / "config.json") && fs::exists(golden_path))
        << "model " << dir << " is missing its config.json or golden.json (it ships with the repository; "
        << "docs/models.md says how it was trained and exported)";

    Checkpoint ckpt = load_checkpoint(dir);
    if (expected_family) ASSERT_EQ(ckpt.config().family, *expected_family);
    EXPECT_TRUE(ckpt.weights.unexpected.empty());
    auto backend = make_cpu_backend(ckpt.weights);

    std::ifstream in(golden_path);
    const auto golden = nlohmann::json::parse(in);
    ASSERT_EQ(golden.at("vocab_size").get<int>(), ckpt.config().vocab_size);
    ASSERT_GE(golden.at("cases").size(), 3u);
    for (const auto& c : golden.at("cases")) {
        const auto ids = c.at("ids").get<std::vector<int32_t>>();
        const auto rows = c.at("rows").get<std::vector<int32_t>>();
        const auto expected = c.at("logits").get<std::vector<std::vector<float>>>();
        ASSERT_EQ(rows.size(), expected.size());

        std::vector<int32_t> all(ids.size());
        for (std::size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int32_t>(i);
        auto cache = backend->make_cache(static_cast<int>(ids.size()));
        ForwardItem item;
        item.tokens = ids;
        item.rows = all;
        item.head_rows = rows;
        item.cache = cache.get();
        backend->forward(std::span<const ForwardItem>(&item, 1));

        for (std::size_t r = 0; r < rows.size(); ++r) {
            const std::vector<float> got = backend->logits(0, static_cast<int>(r));
            ASSERT_EQ(got.size(), expected[r].size());
            float max_diff = 0.f;
            for (std::size_t v = 0; v < got.size(); ++v)
                max_diff = std::max(max_diff, std::abs(got[v] - expected[r][v]));
            EXPECT_LT(max_diff, 1e-3f) << model_name << " case " << c.at("name").get<std::string>() << " row "
                                       << rows[r];
        }
    }
}

fs::path embedded(const std::string& name) { return fs::path(DLM_SOURCE_DIR) / "resources" / "models" / name; }

TEST(EmbeddedModelParity, TinyMdlmMatchesPyTorchGoldenLogits) { check_golden(embedded("tiny-mdlm"), Family::Llada); }

TEST(EmbeddedModelParity, TinyArMatchesPyTorchGoldenLogits) { check_golden(embedded("tiny-ar"), Family::Qwen2); }

// The Dream-family MDLM adapted from the guider: bidirectional over the guider's tensors.
TEST(EmbeddedModelParity, TinyDreamMatchesPyTorchGoldenLogits) { check_golden(embedded("tiny-dream"), Family::Dream); }

TEST(EmbeddedModelParity, TrainingMilestonesMatchTheirGoldenLogits) {
    const fs::path root = fs::path(DLM_SOURCE_DIR) / "tools" / "train" / "milestones";
    int checked = 0;
    if (fs::is_directory(root))
        for (const auto& entry : fs::directory_iterator(root)) {
            if (!entry.is_directory()) continue;
            SCOPED_TRACE(entry.path().string());
            check_golden(entry.path(), std::nullopt);
            ++checked;
        }
    if (checked == 0) GTEST_SKIP() << "no training milestone is kept in " << root;
}

}  // namespace
}  // namespace dlm
