// load_tokenizer(): which file wins, and what a user is told when neither is usable.
#include <gtest/gtest.h>

#include "text/tokenizer.h"
#include "support/text_test_support.h"

namespace dlm {
namespace {

namespace tt = text_test;
using tt::expect_error;

TEST(TextLoadTokenizer, PrefersTokenizerJson) {
    tt::TempDir dir;
    tt::write_file(dir / "tokenizer.json", tt::hf_fixture().dump());
    tt::write_file(dir / "tokenizer.model", "not even looked at");
    auto tok = load_tokenizer(dir.path());
    EXPECT_EQ(tok->kind(), "hf-bpe");
    EXPECT_EQ(tok->encode("hello world"), (std::vector<int32_t>{tt::kHello, tt::kSpaceWorld}));
}

TEST(TextLoadTokenizer, FallsBackToTokenizerModel) {
    tt::TempDir dir;
    tt::train_sentencepiece(dir.path(), "tokenizer", tt::control_model_flags());
    auto tok = load_tokenizer(dir.path());
    EXPECT_EQ(tok->kind(), "sentencepiece");
    EXPECT_EQ(tok->decode(tok->encode("hello world")), "hello world");
}

TEST(TextLoadTokenizer, NeitherFileNamesBoth) {
    tt::TempDir dir;
    expect_error([&] { load_tokenizer(dir.path()); }, {dir.path().string(), "tokenizer.json", "vocab.json + merges.txt", "tokenizer.model"});
    expect_error([&] { load_tokenizer(dir / "absent"); }, {"absent", "not a folder"});
}

TEST(TextLoadTokenizer, MalformedFilesNameTheFile) {
    tt::TempDir dir;
    tt::write_file(dir / "tokenizer.json", "{ truncated");
    expect_error([&] { load_tokenizer(dir.path()); }, {(dir / "tokenizer.json").string(), "not valid JSON"});
    tt::TempDir dir2;
    tt::write_file(dir2 / "tokenizer.model", "\x0a\x05hello garbage");
    expect_error([&] { load_tokenizer(dir2.path()); }, {(dir2 / "tokenizer.model").string()});
}

}  // namespace
}  // namespace dlm
