#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "bench/checkpoint_generator.h"
#include "compute/cpu/cpu_backend.h"
#include "bench/random_weights.h"
#include "support/model_test_support.h"
#include "model/model_weights.h"
#include "model/weight_store.h"

namespace dlm {
namespace {

using test::expect_error;
using test::TempDir;

RandomLladaSpec tiny_spec() {
    RandomLladaSpec s = random_llada_preset("tiny");
    s.seed = 11;
    return s;
}

ModelWeights load(const std::filesystem::path& dir) {
    return bind_weights(load_model_config(dir / "config.json"), WeightStore::open(dir));
}

std::vector<float> values(const TensorView& t) {
    std::vector<float> v(static_cast<std::size_t>(t.numel()));
    convert_to_f32(t.dtype, t.data, v.data(), v.size());
    return v;
}

std::vector<float> logits_of(const ModelWeights& w) {
    auto be = make_cpu_backend(w);
    std::vector<int32_t> tokens = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3}, rows(tokens.size());
    std::iota(rows.begin(), rows.end(), 0);
    auto cache = be->make_cache(static_cast<int>(tokens.size()));
    ForwardItem item;
    item.tokens = tokens;
    item.rows = rows;
    item.head_rows = rows;
    item.cache = cache.get();
    be->forward(std::span<const ForwardItem>(&item, 1));
    std::vector<float> out;
    for (int i = 0; i < static_cast<int>(rows.size()); ++i) {
        const auto l = be->logits(0, i);
        out.insert(out.end(), l.begin(), l.end());
    }
    return out;
}

TEST(ComputeCheckpointGenerator, ShardedF32CheckpointHoldsTheInMemoryModel) {
    TempDir dir;
    CheckpointGeneratorOptions o;
    o.model = tiny_spec();
    o.dtype = DType::F32;
    o.shard_bytes = 150'000;   // several shards
    o.chunk_elements = 1000;  // chunks that cut through tensors
    o.threads = 3;
    const GeneratedCheckpoint g = generate_random_checkpoint(dir.path(), o);
    EXPECT_GT(g.shards, 2u);
    EXPECT_TRUE(std::filesystem::exists(dir / "model.safetensors.index.json"));

    const ModelWeights disk = load(dir.path());
    auto memory = make_random_llada_weights(o.model);
    const ModelWeights& mem = memory->weights;
    EXPECT_TRUE(disk.unexpected.empty());
    EXPECT_EQ(disk.config.d_model, 64);
    EXPECT_EQ(disk.config.vocab_size, 512);
    EXPECT_EQ(disk.config.mask_token_id, 511);
    EXPECT_EQ(disk.config.tied_embeddings, false);
    EXPECT_EQ(values(*disk.embed), values(*mem.embed));
    EXPECT_EQ(values(*disk.lm_head), values(*mem.lm_head));
    for (std::size_t l = 0; l < mem.layers.size(); ++l) {
        EXPECT_EQ(values(*disk.layers[l].wq), values(*mem.layers[l].wq));
        EXPECT_EQ(values(*disk.layers[l].w_down), values(*mem.layers[l].w_down));
        EXPECT_EQ(values(*disk.layers[l].ffn_norm), values(*mem.layers[l].ffn_norm));
    }
    long long params = 0;
    for (const auto& [name, view] : disk.store->all()) params += view->numel();
    EXPECT_EQ(params, g.parameters);
    EXPECT_EQ(params, parameter_count(disk.config));
    // Same values, same backend: the forward passes agree exactly.
    EXPECT_EQ(logits_of(disk), logits_of(mem));
}

TEST(ComputeCheckpointGenerator, Bf16IsTheRoundedValuesInOneFile) {
    TempDir dir;
    CheckpointGeneratorOptions o;
    o.model = tiny_spec();
    const GeneratedCheckpoint g = generate_random_checkpoint(dir.path(), o);
    EXPECT_EQ(g.shards, 1u);
    EXPECT_TRUE(std::filesystem::exists(dir / "model.safetensors"));
    EXPECT_FALSE(std::filesystem::exists(dir / "model.safetensors.index.json"));
    const ModelWeights disk = load(dir.path());
    EXPECT_EQ(disk.embed->dtype, DType::BF16);
    EXPECT_EQ(g.tensor_bytes, static_cast<std::size_t>(g.parameters) * 2);
    auto memory = make_random_llada_weights(o.model);
    std::vector<float> want = values(*memory->weights.layers[1].wk);
    for (float& v : want) v = bf16_to_float(float_to_bf16(v));
    EXPECT_EQ(values(*disk.layers[1].wk), want);
    for (float v : logits_of(disk)) ASSERT_TRUE(std::isfinite(v));
}

TEST(ComputeCheckpointGenerator, RefusesToOverwriteUnlessAsked) {
    TempDir dir;
    CheckpointGeneratorOptions o;
    o.model = tiny_spec();
    o.shard_bytes = 100'000;
    generate_random_checkpoint(dir.path(), o);
    expect_error([&] { generate_random_checkpoint(dir.path(), o); }, {"already holds a checkpoint", "--force"});
    // Overwriting with one shard removes the old shards and index: the folder stays loadable.
    o.overwrite = true;
    o.shard_bytes = std::size_t(1) << 30;
    generate_random_checkpoint(dir.path(), o);
    EXPECT_FALSE(std::filesystem::exists(dir / "model.safetensors.index.json"));
    int safetensors = 0;
    for (const auto& e : std::filesystem::directory_iterator(dir.path())) safetensors += e.path().extension() == ".safetensors";
    EXPECT_EQ(safetensors, 1);
    EXPECT_NO_THROW(load(dir.path()));
}

TEST(ComputeCheckpointGenerator, PresetsHaveTheirDimensions) {
    const RandomLladaSpec s = random_llada_preset("llada-8b");
    const ModelConfig c = random_llada_config(s);
    EXPECT_EQ(c.d_model, 4096);
    EXPECT_EQ(c.n_layers, 32);
    EXPECT_EQ(c.n_heads, 32);
    EXPECT_EQ(c.n_kv_heads, 32);
    EXPECT_EQ(c.d_ff, 12288);
    EXPECT_EQ(c.vocab_size, 126464);
    EXPECT_EQ(c.max_seq_len, 4096);
    EXPECT_DOUBLE_EQ(c.rope_theta, 500000.0);
    EXPECT_EQ(c.mask_token_id, 126336);
    EXPECT_FALSE(c.tied_embeddings);
    long long params = 0;
    for (const RandomTensor& t : random_llada_tensors(s)) params += t.numel();
    EXPECT_EQ(params, parameter_count(c));
    EXPECT_NEAR(static_cast<double>(params), 8.02e9, 0.01e9);  // LLaDA-8B's 8.02 B
    expect_error([] { random_llada_preset("llada-70b"); }, {"llada-8b", "tiny"});
}

}  // namespace
}  // namespace dlm
