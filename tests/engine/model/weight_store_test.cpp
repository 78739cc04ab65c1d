#include <gtest/gtest.h>

#include "support/model_test_support.h"
#include "model/weight_store.h"
#include "support/safetensors_writer.h"

namespace dlm {
namespace {

using test::expect_error;
using test::TempDir;
using test::TensorData;
using test::write_file;

TensorData vec(std::initializer_list<float> v, DType t = DType::F32) {
    return {{static_cast<int64_t>(v.size())}, std::vector<float>(v), t};
}

class ModelWeightStore : public ::testing::Test {
protected:
    // Two shards: shard 1 holds a, b; shard 2 holds c. The index maps all three.
    void write_sharded() {
        test::write_safetensors(dir / "model-00001-of-00002.safetensors", {{"a", vec({1, 2})}, {"b", vec({3})}});
        test::write_safetensors(dir / "model-00002-of-00002.safetensors", {{"c", vec({4, 5, 6}, DType::BF16)}});
        write_index(R"({"metadata": {"total_size": 18}, "weight_map": {
            "a": "model-00001-of-00002.safetensors",
            "b": "model-00001-of-00002.safetensors",
            "c": "model-00002-of-00002.safetensors"}})");
    }
    void write_index(const std::string& text) { write_file(dir / "model.safetensors.index.json", text); }
    TempDir dir;
};

TEST_F(ModelWeightStore, OpensShardedCheckpoint) {
    write_sharded();
    auto store = WeightStore::open(dir.path());
    ASSERT_EQ(store->files().size(), 2u);
    ASSERT_EQ(store->all().size(), 3u);
    ASSERT_NE(store->find("c"), nullptr);
    EXPECT_EQ(store->find("c")->dtype, DType::BF16);
    EXPECT_NE(store->find("c")->file.find("model-00002-of-00002.safetensors"), std::string::npos);
    EXPECT_NE(store->find("a")->file.find("model-00001-of-00002.safetensors"), std::string::npos);
    EXPECT_EQ(store->find("missing"), nullptr);
    EXPECT_EQ(store->total_bytes(), 8u + 4u + 6u);
    float b = 0;
    convert_to_f32(DType::F32, store->find("b")->data, &b, 1);
    EXPECT_EQ(b, 3.0f);
}

TEST_F(ModelWeightStore, TensorsMissingFromTheIndexAreStillServed) {
    // Decision: the shard files are the truth, the index only a directory. An unlisted tensor is
    // served (bind_weights reports it in `unexpected` if no family slot uses it).
    test::write_safetensors(dir / "s1.safetensors", {{"a", vec({1})}, {"extra", vec({2})}});
    write_index(R"({"weight_map": {"a": "s1.safetensors"}})");
    auto store = WeightStore::open(dir.path());
    EXPECT_NE(store->find("extra"), nullptr);
    EXPECT_EQ(store->all().size(), 2u);
}

TEST_F(ModelWeightStore, IndexBadJson) {
    write_sharded();
    write_index(R"({"weight_map": {"a": )");
    expect_error([&] { WeightStore::open(dir.path()); }, {"model.safetensors.index.json", "not valid JSON"});
}

TEST_F(ModelWeightStore, IndexMissingWeightMap) {
    write_sharded();
    write_index(R"({"metadata": {"total_size": 18}})");
    expect_error([&] { WeightStore::open(dir.path()); }, {"model.safetensors.index.json", "missing \"weight_map\""});
    write_index(R"({"weight_map": ["a", "b"]})");
    expect_error([&] { WeightStore::open(dir.path()); }, {"\"weight_map\" must be an object"});
    write_index(R"({"weight_map": {}})");
    expect_error([&] { WeightStore::open(dir.path()); }, {"\"weight_map\" is empty"});
    write_index(R"({"weight_map": {"a": 3}})");
    expect_error([&] { WeightStore::open(dir.path()); }, {"weight_map entry for \"a\" must be a file name"});
    write_index(R"([1])");
    expect_error([&] { WeightStore::open(dir.path()); }, {"expected a JSON object"});
}

TEST_F(ModelWeightStore, IndexNamesMissingShard) {
    write_sharded();
    std::filesystem::remove(dir / "model-00002-of-00002.safetensors");
    expect_error([&] { WeightStore::open(dir.path()); },
                 {"shard model-00002-of-00002.safetensors is missing from", dir.path().string(), "\"c\""});
}

TEST_F(ModelWeightStore, IndexMapsTensorToShardThatLacksIt) {
    write_sharded();
    write_index(R"({"weight_map": {
        "a": "model-00001-of-00002.safetensors",
        "b": "model-00002-of-00002.safetensors",
        "c": "model-00002-of-00002.safetensors"}})");
    expect_error([&] { WeightStore::open(dir.path()); },
                 {"maps \"b\" to model-00002-of-00002.safetensors, but that shard has no such tensor",
                  "(it is in model-00001-of-00002.safetensors)"});
    write_index(R"({"weight_map": {"ghost": "model-00001-of-00002.safetensors"}})");
    expect_error([&] { WeightStore::open(dir.path()); }, {"maps \"ghost\" to model-00001-of-00002.safetensors"});
}

TEST_F(ModelWeightStore, DuplicateTensorAcrossShards) {
    test::write_safetensors(dir / "s1.safetensors", {{"a", vec({1})}});
    test::write_safetensors(dir / "s2.safetensors", {{"a", vec({2})}, {"b", vec({3})}});
    write_index(R"({"weight_map": {"a": "s1.safetensors", "b": "s2.safetensors"}})");
    expect_error([&] { WeightStore::open(dir.path()); },
                 {"tensor \"a\" appears in two shards, s1.safetensors and s2.safetensors"});
}

TEST_F(ModelWeightStore, ShardNameMustStayInsideTheFolder) {
    write_sharded();
    write_index(R"({"weight_map": {"a": "../elsewhere.safetensors"}})");
    expect_error([&] { WeightStore::open(dir.path()); }, {"not a file name inside the checkpoint folder"});
}

TEST_F(ModelWeightStore, BadShardIsReportedByItsFileName) {
    write_sharded();
    write_file(dir / "model-00002-of-00002.safetensors", "garbage!!");
    expect_error([&] { WeightStore::open(dir.path()); }, {"model-00002-of-00002.safetensors", "points past the end"});
}

TEST_F(ModelWeightStore, SingleFileFallbacks) {
    // model.safetensors wins over other files.
    test::write_safetensors(dir / "model.safetensors", {{"w", vec({1})}});
    test::write_safetensors(dir / "other.safetensors", {{"v", vec({1})}});
    auto store = WeightStore::open(dir.path());
    EXPECT_NE(store->find("w"), nullptr);
    EXPECT_EQ(store->find("v"), nullptr);

    // Without model.safetensors, a single *.safetensors is taken.
    std::filesystem::remove(dir / "model.safetensors");
    store = WeightStore::open(dir.path());
    EXPECT_NE(store->find("v"), nullptr);

    // Two candidates and no index: ambiguous.
    test::write_safetensors(dir / "third.safetensors", {{"u", vec({1})}});
    expect_error([&] { WeightStore::open(dir.path()); },
                 {"several .safetensors files (other.safetensors, third.safetensors)", "model.safetensors.index.json"});
}

TEST_F(ModelWeightStore, NoCheckpoint) {
    write_file(dir / "config.json", "{}");
    expect_error([&] { WeightStore::open(dir.path()); }, {"no safetensors checkpoint in " + dir.path().string()});
    expect_error([&] { WeightStore::open(dir / "does-not-exist"); }, {"does-not-exist", "not a folder"});
}

TEST_F(ModelWeightStore, OpenFile) {
    test::write_safetensors(dir / "any-name.safetensors", {{"w", vec({1, 2, 3})}});
    auto store = WeightStore::open_file(dir / "any-name.safetensors");
    ASSERT_NE(store->find("w"), nullptr);
    EXPECT_EQ(store->find("w")->numel(), 3);
    EXPECT_EQ(store->files().size(), 1u);
}

TEST(ModelWeightStoreIndex, ShardNameWithANulIsRefused) {
    TempDir dir;
    write_file(dir / "model.safetensors.index.json", "{\"weight_map\": {\"a\": \"s2.safetensors\\u0000junk\"}}");
    expect_error([&] { WeightStore::open(dir.path()); }, {"contains a NUL character"});
}

}  // namespace
}  // namespace dlm
