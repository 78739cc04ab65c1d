#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/model_test_support.h"
#include "support/text_test_support.h"  // hf_fixture(): a small, known-good tokenizer.json
#include "model/checkpoint.h"
#include "support/safetensors_writer.h"

namespace dlm {
namespace {

using nlohmann::json;
using test::expect_error;
using test::TempDir;
using test::TensorData;

// The fixture tokenizer has ids 0..304 (<|endoftext|> 300, <|im_start|> 301, <|im_end|> 302,
// <mask> 304), so the tiny model gets 320 embedding rows.
constexpr int kRows = 320;

json tiny_llada_config() {
    return {{"architectures", {"LLaDAModelLM"}}, {"model_type", "llada"}, {"d_model", 8}, {"n_layers", 1},
            {"n_heads", 2}, {"n_kv_heads", 2}, {"mlp_hidden_size", 12}, {"vocab_size", kRows},
            {"max_sequence_length", 64}, {"rope_theta", 10000.0}, {"rms_norm_eps", 1e-5},
            {"weight_tying", true}, {"mask_token_id", 304}, {"eos_token_id", 300}};
}

TensorData zeros(std::vector<int64_t> shape) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    return {std::move(shape), std::vector<float>(static_cast<std::size_t>(n), 0.5f), DType::BF16};
}

class ModelCheckpoint : public ::testing::Test {
protected:
    void write_checkpoint(const json& config) {
        test::write_file(dir / "config.json", config.dump(2));
        test::write_file(dir / "tokenizer.json", text_test::hf_fixture().dump());
        const std::string p = "model.transformer.blocks.0.";
        test::write_safetensors(dir / "model.safetensors",
                                {{"model.transformer.wte.weight", zeros({kRows, 8})},
                                 {p + "attn_norm.weight", zeros({8})},
                                 {p + "q_proj.weight", zeros({8, 8})},
                                 {p + "k_proj.weight", zeros({8, 8})},
                                 {p + "v_proj.weight", zeros({8, 8})},
                                 {p + "attn_out.weight", zeros({8, 8})},
                                 {p + "ff_norm.weight", zeros({8})},
                                 {p + "ff_proj.weight", zeros({12, 8})},
                                 {p + "up_proj.weight", zeros({12, 8})},
                                 {p + "ff_out.weight", zeros({8, 12})},
                                 {"model.transformer.ln_f.weight", zeros({8})}});
    }
    TempDir dir;
};

TEST_F(ModelCheckpoint, LoadsConfigWeightsAndTokenizer) {
    write_checkpoint(tiny_llada_config());
    const Checkpoint ck = load_checkpoint(dir.path());
    EXPECT_EQ(ck.dir, dir.path());
    EXPECT_EQ(ck.config().family, Family::Llada);
    EXPECT_EQ(ck.config().vocab_size, kRows);
    EXPECT_EQ(ck.config().mask_token_id, 304);
    EXPECT_EQ(ck.config().eos_token_id, 300);
    ASSERT_EQ(ck.weights.layers.size(), 1u);
    EXPECT_EQ(ck.weights.lm_head, ck.weights.embed);
    ASSERT_NE(ck.tokenizer, nullptr);
    EXPECT_EQ(ck.tokenizer->kind(), "hf-bpe");
    EXPECT_EQ(ck.config().eot_token_id, 302);  // "<|im_end|>" found in the tokenizer, differs from eos
}

// training.json (the embedded models' record) gives the longest sequence training used; a
// record without it, or a malformed one, leaves it unknown and does not stop the load.
TEST_F(ModelCheckpoint, TheTrainedSequenceLengthComesFromTrainingJson) {
    write_checkpoint(tiny_llada_config());
    EXPECT_EQ(load_checkpoint(dir.path()).config().trained_seq_len, 0);
    test::write_file(dir / "training.json", R"({"step": 9, "trained_sequence_length": 48})");
    EXPECT_EQ(load_checkpoint(dir.path()).config().trained_seq_len, 48);
    for (const char* bad : {R"({"trained_sequence_length": -3})", R"({"trained_sequence_length": "48"})",
                            R"({"trained_sequence_length": 1e30})", "not json", "[48]"}) {
        test::write_file(dir / "training.json", bad);
        EXPECT_EQ(load_checkpoint(dir.path()).config().trained_seq_len, 0) << bad;
    }
}

TEST_F(ModelCheckpoint, FillsMissingSpecialIdsFromSideFiles) {
    json config = tiny_llada_config();
    config.erase("mask_token_id");  // not LLaDA's vocabulary, so no default: must come from a side file
    config.erase("eos_token_id");
    write_checkpoint(config);
    test::write_file(dir / "generation_config.json", R"({"bos_token_id": 301, "eos_token_id": [300, 302]})");
    test::write_file(dir / "tokenizer_config.json",
                     R"({"pad_token": "<|endoftext|>", "mask_token": {"content": "<mask>", "special": true}})");
    const Checkpoint ck = load_checkpoint(dir.path());
    EXPECT_EQ(ck.config().bos_token_id, 301);
    EXPECT_EQ(ck.config().eos_token_id, 300);  // first of the list
    EXPECT_EQ(ck.config().pad_token_id, 300);
    EXPECT_EQ(ck.config().mask_token_id, 304);
    EXPECT_EQ(ck.config().eot_token_id, 302);
}

TEST_F(ModelCheckpoint, ConfigIdsWinOverSideFiles) {
    write_checkpoint(tiny_llada_config());
    test::write_file(dir / "generation_config.json", R"({"eos_token_id": 301, "mask_token_id": 1})");
    const Checkpoint ck = load_checkpoint(dir.path());
    EXPECT_EQ(ck.config().eos_token_id, 300);
    EXPECT_EQ(ck.config().mask_token_id, 304);
    EXPECT_TRUE(ck.warnings.empty());  // generation_config.json only fills what is missing
}

// config.json and tokenizer_config.json naming different tokens for one role: config.json's is
// used, and the disagreement is said (inspect prints it), not silently picked.
TEST_F(ModelCheckpoint, ConflictingSpecialTokensAreAWarning) {
    write_checkpoint(tiny_llada_config());
    test::write_file(dir / "tokenizer_config.json", R"({"eos_token": "<|im_end|>", "mask_token": "<mask>"})");
    const Checkpoint ck = load_checkpoint(dir.path());
    EXPECT_EQ(ck.config().eos_token_id, 300);
    ASSERT_EQ(ck.warnings.size(), 1u);
    EXPECT_NE(ck.warnings[0].find("eos_token_id 300"), std::string::npos) << ck.warnings[0];
    EXPECT_NE(ck.warnings[0].find("<|im_end|> (302)"), std::string::npos) << ck.warnings[0];
}

TEST_F(ModelCheckpoint, MaskIdMissingEverywhere) {
    json config = tiny_llada_config();
    config.erase("mask_token_id");
    write_checkpoint(config);
    expect_error([&] { load_checkpoint(dir.path()); }, {"config.json", "\"mask_token_id\" is missing"});
}

// Links may stay inside the folder, or (a Hugging Face cache snapshot) point into the
// repository's blobs; a link that leads elsewhere is refused before any byte is read.
TEST_F(ModelCheckpoint, LinksMayNotLeaveTheFolder) {
    namespace fs = std::filesystem;
    write_checkpoint(tiny_llada_config());
    // Inside the folder: fine.
    fs::rename(dir.path() / "tokenizer.json", dir.path() / "tok.json");
    fs::create_symlink("tok.json", dir.path() / "tokenizer.json");
    EXPECT_NO_THROW(load_checkpoint(dir.path()));
    // Out of it: refused, naming the link and its target, never echoing the target's bytes.
    TempDir outside;
    test::write_file(outside.path() / "secret.txt", "root:x:0:0");
    fs::create_symlink(outside.path() / "secret.txt", dir.path() / "model.safetensors.index.json");
    const std::string msg = expect_error([&] { load_checkpoint(dir.path()); },
                                         {"model.safetensors.index.json", "a link to", "outside the model folder"});
    EXPECT_EQ(msg.find("root:x"), std::string::npos);
    fs::remove(dir.path() / "model.safetensors.index.json");

    // A Hugging Face cache: <repo>/snapshots/<rev>/<file> -> ../../blobs/<hash>.
    TempDir cache;
    const fs::path repo = cache.path() / "models--org--tiny";
    fs::create_directories(repo / "blobs");
    fs::create_directories(repo / "snapshots" / "abc123");
    for (const char* name : {"config.json", "tok.json", "model.safetensors"}) {
        fs::copy_file(dir.path() / name, repo / "blobs" / (std::string("blob-") + name));
        fs::create_symlink(fs::path("../../blobs") / (std::string("blob-") + name), repo / "snapshots" / "abc123" / name);
    }
    fs::create_symlink("../../blobs/blob-tok.json", repo / "snapshots" / "abc123" / "tokenizer.json");
    EXPECT_NO_THROW(load_checkpoint(repo / "snapshots" / "abc123"));
}

TEST_F(ModelCheckpoint, FolderProblems) {
    expect_error([&] { load_checkpoint(dir / "absent"); }, {"absent", "does not exist"});
    test::write_file(dir / "file.txt", "x");
    expect_error([&] { load_checkpoint(dir / "file.txt"); }, {"file.txt", "not a folder"});
    expect_error([&] { load_checkpoint(dir.path()); }, {dir.path().string(), "no config.json"});
}

TEST_F(ModelCheckpoint, ConfigErrorsComeFirst) {
    write_checkpoint(tiny_llada_config());
    test::write_file(dir / "config.json", "{ not json");
    expect_error([&] { load_checkpoint(dir.path()); }, {(dir / "config.json").string(), "not valid JSON"});
    test::write_file(dir / "config.json", R"({"architectures": ["GPT2LMHeadModel"], "model_type": "gpt2"})");
    std::filesystem::remove(dir / "tokenizer.json");  // the architecture error must win anyway
    expect_error([&] { load_checkpoint(dir.path()); }, {"GPT2LMHeadModel", "gpt2", "unsupported model"});
}

TEST_F(ModelCheckpoint, TokenizerLargerThanEmbeddingIsRejected) {
    json config = tiny_llada_config();
    config["vocab_size"] = 300;
    config["mask_token_id"] = 299;
    config["eos_token_id"] = 298;
    write_checkpoint(config);
    expect_error([&] { load_checkpoint(dir.path()); }, {"tokenizer has 305 tokens", "only 300 rows"});
}

TEST_F(ModelCheckpoint, MissingWeightsAndMissingTokenizer) {
    write_checkpoint(tiny_llada_config());
    std::filesystem::remove(dir / "model.safetensors");
    expect_error([&] { load_checkpoint(dir.path()); }, {"no safetensors checkpoint in"});
    write_checkpoint(tiny_llada_config());
    std::filesystem::remove(dir / "tokenizer.json");
    expect_error([&] { load_checkpoint(dir.path()); }, {"no tokenizer found"});
}

}  // namespace
}  // namespace dlm

namespace dlm {
namespace {

// The embedded default models shipped in resources/models load end to end (real files written by
// tools/train: a LLaDA-family diffusion model and a Qwen2-family AR guider, SentencePiece tokenizer).
TEST(ModelCheckpointShipped, TinyModelsLoad) {
    const std::filesystem::path root = std::filesystem::path(DLM_SOURCE_DIR) / "resources" / "models";
    const Checkpoint mdlm = load_checkpoint(root / "tiny-mdlm");
    EXPECT_EQ(mdlm.config().family, Family::Llada);
    EXPECT_EQ(mdlm.weights.layers.size(), static_cast<std::size_t>(mdlm.config().n_layers));
    EXPECT_NE(mdlm.weights.lm_head, mdlm.weights.embed);
    EXPECT_TRUE(mdlm.weights.unexpected.empty());
    EXPECT_EQ(mdlm.config().mask_token_id, 3);
    EXPECT_LE(mdlm.tokenizer->vocab_size(), mdlm.config().vocab_size);

    const Checkpoint ar = load_checkpoint(root / "tiny-ar");
    EXPECT_EQ(ar.config().family, Family::Qwen2);
    EXPECT_FALSE(ar.config().bidirectional);
    EXPECT_EQ(ar.weights.lm_head, ar.weights.embed);
    EXPECT_NE(ar.weights.layers.at(0).bq, nullptr);
    EXPECT_TRUE(ar.weights.unexpected.empty());
}

}  // namespace
}  // namespace dlm
