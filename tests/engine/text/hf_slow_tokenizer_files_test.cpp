// The slow byte-level BPE form (vocab.json + merges.txt) of published checkpoints: Dream's files
// exactly as published give the ids the Hugging Face tokenizers library gives (llama.cpp's 46 Qwen2
// test texts), whatever the vocab.json key order or merges header, with added tokens from either
// tokenizer_config.json or added_tokens.json.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "decode/decode_session.h"
#include "model/checkpoint.h"
#include "support/random_checkpoint.h"
#include "text/chat_template.h"
#include "text/tokenizer.h"
#include "support/text_test_support.h"

namespace dlm {
namespace {

namespace fs = std::filesystem;
namespace tt = text_test;

const fs::path kData = DLM_TEST_DATA_DIR;
const fs::path kDream = kData / "dream-v0-instruct-7b";

std::string slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

struct Case {
    std::string text;
    std::vector<int32_t> ids;
};

// llama.cpp's format: texts separated by "\n__ggml_vocab_test__\n", one line of ids per text.
std::vector<Case> llamacpp_cases() {
    const std::string inp = slurp(kData / "llamacpp-tokenizer-tests" / "ggml-vocab-qwen2.gguf.inp");
    const std::string out = slurp(kData / "llamacpp-tokenizer-tests" / "ggml-vocab-qwen2.gguf.out");
    const std::string sep = "\n__ggml_vocab_test__\n";
    std::vector<std::string> texts;
    for (std::size_t at = 0;;) {
        const auto next = inp.find(sep, at);
        if (next == std::string::npos) break;
        texts.push_back(inp.substr(at, next - at));
        at = next + sep.size();
    }
    std::vector<Case> cases;
    std::istringstream lines(out);
    std::string line;
    for (const std::string& t : texts) {
        std::getline(lines, line);
        Case c{t, {}};
        std::istringstream ids(line);
        for (int32_t id; ids >> id;) c.ids.push_back(id);
        cases.push_back(std::move(c));
    }
    return cases;
}

void copy_folder(const fs::path& from, const fs::path& to) {
    for (const auto& e : fs::directory_iterator(from)) fs::copy_file(e.path(), to / e.path().filename());
}

TEST(TextSlowBpe, DreamAsPublishedMatchesHuggingFaceOnLlamaCppTexts) {
    ASSERT_EQ(tokenizer_form(kDream), TokenizerForm::VocabMerges);
    const auto tok = load_tokenizer(kDream);
    EXPECT_EQ(tok->kind(), "hf-bpe");
    EXPECT_EQ(tok->vocab_size(), 151667);  // 151,643 vocabulary tokens + 24 added
    const auto cases = llamacpp_cases();
    ASSERT_EQ(cases.size(), 46u);
    for (const Case& c : cases) EXPECT_EQ(tok->encode(c.text), c.ids) << "text: \"" << c.text << "\"";
    // Added tokens of tokenizer_config.json's added_tokens_decoder, special ones parsed by id.
    EXPECT_EQ(tok->encode("<|im_start|>user", true), (std::vector<int32_t>{151644, 872}));
    EXPECT_EQ(tok->token_id("<|mask|>"), 151666);
    EXPECT_TRUE(tok->is_special(151665));  // <|beginoftext|>
    EXPECT_EQ(tok->decode(tok->encode("Äpfel 🙂 ied 4 ½ months")), "Äpfel 🙂 ied 4 ½ months");
}

TEST(TextSlowBpe, KeyOrderMergesHeaderAndAddedTokensJsonDoNotMatter) {
    tt::TempDir dir;
    // vocab.json compact and in id order, merges.txt without its "#version" line, and no
    // added_tokens_decoder: the added tokens come from added_tokens.json.
    const auto vocab = nlohmann::json::parse(slurp(kDream / "vocab.json"));
    std::vector<std::pair<int, std::string>> by_id;
    for (const auto& [k, v] : vocab.items()) by_id.emplace_back(v.get<int>(), k);
    std::sort(by_id.begin(), by_id.end());
    std::string in_id_order = "{";
    for (const auto& [id, k] : by_id)
        in_id_order += (in_id_order.size() > 1 ? "," : "") + nlohmann::json(k).dump() + ":" + std::to_string(id);
    tt::write_file(dir / "vocab.json", in_id_order + "}");
    std::string merges = slurp(kDream / "merges.txt");
    ASSERT_EQ(merges.rfind("#version", 0), 0u);
    tt::write_file(dir / "merges.txt", merges.substr(merges.find('\n') + 1));
    auto config = nlohmann::json::parse(slurp(kData / "qwen2.5-0.5b-instruct" / "tokenizer_config.json"));
    config.erase("added_tokens_decoder");
    tt::write_file(dir / "tokenizer_config.json", config.dump());
    fs::copy_file(kData / "qwen2.5-0.5b-instruct" / "added_tokens.json", dir / "added_tokens.json");
    fs::copy_file(kData / "qwen2.5-0.5b-instruct" / "special_tokens_map.json", dir / "special_tokens_map.json");

    const auto tok = load_tokenizer(dir.path());
    for (const Case& c : llamacpp_cases()) EXPECT_EQ(tok->encode(c.text), c.ids) << "text: \"" << c.text << "\"";
    EXPECT_EQ(tok->encode("<|im_start|>user\nhi<|im_end|>", true), (std::vector<int32_t>{151644, 872, 198, 6023, 151645}));
    EXPECT_TRUE(tok->is_special(151645));  // <|im_end|>: named by special_tokens_map.json
}

TEST(TextSlowBpe, DreamFolderWithRandomWeightsOpensAndChatsAsPublished) {
    // Dream's published tokenizer files beside random weights under Dream's tensor names.
    tt::TempDir dir;
    test::RandomCheckpointOptions o;
    o.vocab_size = 152064;
    o.mask_token_id = 151666;
    o.eos_token_id = 151643;
    o.dtype = DType::BF16;
    test::write_random_checkpoint(dir.path(), Family::Dream, o);
    for (const char* f : {"vocab.json", "merges.txt", "tokenizer_config.json", "added_tokens.json",
                          "special_tokens_map.json", "generation_config.json"})
        fs::copy_file(kDream / f, dir / f);
    const Checkpoint ck = load_checkpoint(dir.path());
    EXPECT_EQ(tokenizer_form(dir.path()), TokenizerForm::VocabMerges);
    // The template is recognised from tokenizer_config.json's text, its system line read out of it.
    ASSERT_EQ(ck.chat_template.kind, ChatTemplateKind::ChatML);
    EXPECT_EQ(ck.chat_template.default_system, "You are a helpful assistant.");
    const std::vector<int32_t> ids = build_prompt(ck, "What is 2+2?", true);
    EXPECT_EQ(ck.tokenizer->decode(ids),
              "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n<|im_start|>user\nWhat is 2+2?<|im_end|>\n"
              "<|im_start|>assistant\n");
    ASSERT_FALSE(ids.empty());
    EXPECT_EQ(ids.front(), 151644);  // <|im_start|> inserted by id, never spelled out
}

TEST(TextSlowBpe, PrecedenceAndErrors) {
    tt::TempDir dir;
    copy_folder(kDream, dir.path());
    // tokenizer.json wins over the slow files.
    tt::write_file(dir / "tokenizer.json", tt::hf_fixture().dump());
    EXPECT_EQ(tokenizer_form(dir.path()), TokenizerForm::TokenizerJson);
    EXPECT_EQ(load_tokenizer(dir.path())->encode("hello world"), (std::vector<int32_t>{tt::kHello, tt::kSpaceWorld}));
    fs::remove(dir / "tokenizer.json");
    EXPECT_EQ(tokenizer_form_name(tokenizer_form(dir.path())), "vocab.json + merges.txt");

    // A class whose pre-tokenizer is not known is refused by name, never guessed.
    auto config = nlohmann::json::parse(slurp(kDream / "tokenizer_config.json"));
    config["tokenizer_class"] = "LlamaTokenizer";
    tt::write_file(dir / "tokenizer_config.json", config.dump());
    tt::expect_error([&] { load_tokenizer(dir.path()); }, {"tokenizer_class \"LlamaTokenizer\"", "not supported"});

    tt::TempDir bad;
    tt::write_file(bad / "vocab.json", "{\"a\": 0, \"b\": 1, \"ab\": 2}");
    tt::write_file(bad / "merges.txt", "#version: 0.2\na b\na b c\n");
    tt::expect_error([&] { load_tokenizer(bad.path()); }, {"merges.txt:3", "two tokens"});
    tt::write_file(bad / "merges.txt", "a x\n");
    tt::expect_error([&] { load_tokenizer(bad.path()); }, {"vocab.json + merges.txt", "\"x\", which is not in model.vocab"});

    tt::TempDir none;
    tt::expect_error([&] { load_tokenizer(none.path()); }, {"tokenizer.json", "vocab.json + merges.txt", "tokenizer.model"});
}

}  // namespace
}  // namespace dlm
