// SentencePieceTokenizer on models trained in the test (libsentencepiece's trainer): round trips,
// byte fallback, the parse_special rule for USER_DEFINED and CONTROL pieces, token_text, errors.
#include <gtest/gtest.h>
#include <sentencepiece_processor.h>

#include "text/sentencepiece_tokenizer.h"
#include "support/text_test_support.h"

namespace dlm {
namespace {

namespace tt = text_test;
using tt::expect_error;

// Both models are trained once for the whole suite.
class TextSentencePiece : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        dir_ = new tt::TempDir();
        user_defined_path_ = tt::train_sentencepiece(dir_->path(), "ud", tt::user_defined_model_flags());
        control_path_ = tt::train_sentencepiece(dir_->path(), "ctl", tt::control_model_flags());
    }
    static void TearDownTestSuite() {
        delete dir_;
        dir_ = nullptr;
    }
    // USER_DEFINED specials, dummy prefix on.
    static std::unique_ptr<SentencePieceTokenizer> user_defined() { return SentencePieceTokenizer::load(user_defined_path_); }
    // CONTROL specials, dummy prefix off (the dlmscope-tiny layout).
    static std::unique_ptr<SentencePieceTokenizer> control() { return SentencePieceTokenizer::load(control_path_); }

    static inline tt::TempDir* dir_ = nullptr;
    static inline std::filesystem::path user_defined_path_, control_path_;
};

const std::vector<std::string>& round_trip_texts() {
    static const std::vector<std::string> texts = {
        "the model unmasks the token",
        "hello world, and more: 42 + 7 = 49!",
        "  leading and trailing spaces  ",
        "many     spaces\tand\ttabs\nand\r\nnewlines\n\n",
        " starts with a space",
        "emoji 😀 👍🏽 👩‍👩‍👧 via byte fallback",
        "unseen scripts: 你好 مرحبا नमस्ते Ελληνικά",
        "code: if (a[i] != b) { return x->y; }",
        "ends with a newline\n",
        "",
    };
    return texts;
}

TEST_F(TextSentencePiece, MetaPiecesHaveTheTrainerIds) {
    auto tok = user_defined();
    EXPECT_EQ(tok->kind(), "sentencepiece");
    EXPECT_EQ(tok->token_id("<unk>"), 0);
    EXPECT_EQ(tok->token_id("<s>"), 1);
    EXPECT_EQ(tok->token_id("</s>"), 2);
    EXPECT_EQ(tok->token_id("<|mask|>"), 3);
    EXPECT_EQ(tok->token_id("<|eot|>"), 4);
    EXPECT_EQ(tok->token_id("<|user|>"), 5);
    EXPECT_EQ(tok->token_id("<|assistant|>"), 6);
    EXPECT_EQ(tok->token_id("<|endoftext|>"), 7);
    EXPECT_EQ(tok->token_id("<0x00>"), 8);
    EXPECT_EQ(tok->token_id("<0xFF>"), 8 + 255);
    EXPECT_EQ(tok->token_id("no such piece"), std::nullopt);
    for (int id = 0; id <= 7; ++id) EXPECT_TRUE(tok->is_special(id)) << id;
    EXPECT_FALSE(tok->is_special(8));
    EXPECT_FALSE(tok->is_special(tok->vocab_size() - 1));
    EXPECT_FALSE(tok->is_special(tok->vocab_size()));

    sentencepiece::SentencePieceProcessor reference;
    ASSERT_TRUE(reference.Load(user_defined_path_.string()).ok());
    EXPECT_EQ(tok->vocab_size(), reference.GetPieceSize());
    EXPECT_GT(tok->vocab_size(), 8 + 256);
}

TEST_F(TextSentencePiece, RoundTripsWithDummyPrefix) {
    auto tok = user_defined();
    for (const auto& s : round_trip_texts()) {
        EXPECT_EQ(tok->decode(tok->encode(s, false)), s) << s;
        EXPECT_EQ(tok->decode(tok->encode(s, true)), s) << s;
    }
}

TEST_F(TextSentencePiece, RoundTripsWithoutDummyPrefix) {
    auto tok = control();
    for (const auto& s : round_trip_texts()) {
        EXPECT_EQ(tok->decode(tok->encode(s, false)), s) << s;
        EXPECT_EQ(tok->decode(tok->encode(s, true)), s) << s;
    }
}

TEST_F(TextSentencePiece, OrdinaryTextMatchesTheLibrary) {
    // Without special spellings in the text, encode() is exactly libsentencepiece's Encode.
    for (const auto& path : {user_defined_path_, control_path_}) {
        sentencepiece::SentencePieceProcessor reference;
        ASSERT_TRUE(reference.Load(path.string()).ok());
        auto tok = SentencePieceTokenizer::load(path);
        for (const auto& s : round_trip_texts()) {
            std::vector<int> expected;
            ASSERT_TRUE(reference.Encode(s, &expected).ok());
            EXPECT_EQ(tok->encode(s), std::vector<int32_t>(expected.begin(), expected.end())) << s;
        }
    }
}

TEST_F(TextSentencePiece, EmojiUsesByteFallbackPieces) {
    auto tok = control();
    const auto e = tok->encode("😀");  // F0 9F 98 80, never seen in training
    ASSERT_EQ(e.size(), 4u);
    EXPECT_EQ(e[0], *tok->token_id("<0xF0>"));
    EXPECT_EQ(e[3], *tok->token_id("<0x80>"));
    EXPECT_EQ(tok->decode(e), "😀");
    // Half a character decodes to its raw bytes, and shows as <0xNN> in the grid.
    EXPECT_EQ(tok->decode({e[0], e[1]}), "\xF0\x9F");
    EXPECT_EQ(tok->token_text(e[0]), "<0xF0>");
}

TEST_F(TextSentencePiece, TokenText) {
    auto tok = user_defined();
    EXPECT_EQ(tok->token_text(*tok->token_id("<0x41>")), "A");
    EXPECT_EQ(tok->token_text(*tok->token_id("<0x0A>")), "\n");
    EXPECT_EQ(tok->token_text(*tok->token_id("<0xC3>")), "<0xC3>");
    EXPECT_EQ(tok->token_text(4), "<|eot|>");
    EXPECT_EQ(tok->token_text(1), "<s>");
    EXPECT_EQ(tok->token_text(-1), "<unused:-1>");
    EXPECT_EQ(tok->token_text(tok->vocab_size()), "<unused:" + std::to_string(tok->vocab_size()) + ">");
    // A learned word piece with the whitespace marker shows a space.
    const auto the = tok->token_id("\xE2\x96\x81the");
    ASSERT_TRUE(the.has_value()) << "the corpus is full of \"the\"";
    EXPECT_EQ(tok->token_text(*the), " the");
}

TEST_F(TextSentencePiece, UserDefinedSpecialsOnlyWhenParsingSpecials) {
    auto tok = user_defined();
    const std::string text = "hello<|eot|>world <|user|>";
    const auto parsed = tok->encode(text, true);
    EXPECT_EQ(std::count(parsed.begin(), parsed.end(), 4), 1);
    EXPECT_EQ(std::count(parsed.begin(), parsed.end(), 5), 1);
    EXPECT_EQ(tok->decode(parsed), text);

    const auto literal = tok->encode(text, false);
    for (int32_t id : literal) EXPECT_FALSE(tok->is_special(id)) << id;
    EXPECT_EQ(tok->decode(literal), text);
    EXPECT_EQ(tok->decode(tok->encode("<|eot|>", false)), "<|eot|>");
    // libsentencepiece alone would have produced the special id here.
    sentencepiece::SentencePieceProcessor reference;
    ASSERT_TRUE(reference.Load(user_defined_path_.string()).ok());
    std::vector<int> native;
    ASSERT_TRUE(reference.Encode(text, &native).ok());
    EXPECT_NE(std::find(native.begin(), native.end(), 4), native.end());
}

TEST_F(TextSentencePiece, ControlSpecialsOnlyWhenParsingSpecials) {
    auto tok = control();
    const int32_t eot = *tok->token_id("<|eot|>");
    EXPECT_EQ(tok->encode("<|eot|>", true), std::vector<int32_t>{eot});
    EXPECT_EQ(tok->encode("<s>", true), std::vector<int32_t>{1});
    const auto literal = tok->encode("a<|eot|>b<s>", false);
    for (int32_t id : literal) EXPECT_FALSE(tok->is_special(id)) << id;
    EXPECT_EQ(tok->decode(literal), "a<|eot|>b<s>");
}

TEST_F(TextSentencePiece, DecodeSkipSpecial) {
    for (const auto& path : {user_defined_path_, control_path_}) {
        auto tok = SentencePieceTokenizer::load(path);
        const int32_t eot = *tok->token_id("<|eot|>");
        std::vector<int32_t> ids{1};
        const auto hello = tok->encode("hello world");
        ids.insert(ids.end(), hello.begin(), hello.end());
        ids.push_back(eot);
        ids.push_back(2);
        EXPECT_EQ(tok->decode(ids, true), "hello world");
        const std::string eos = tok->token_text(2);
        EXPECT_EQ(tok->decode(ids, false), "<s>hello world<|eot|>" + eos);
        // Unknown ids are skipped rather than crashing.
        ids.push_back(-7);
        ids.push_back(1 << 30);
        EXPECT_EQ(tok->decode(ids, true), "hello world");
    }
}

TEST_F(TextSentencePiece, DummyPrefixAfterBosMatchesTheLibrary) {
    // [bos] + encode(text) is how prompts are built; the library's decode drops the dummy "▁"
    // after a CONTROL piece, and so must ours.
    auto tok = user_defined();
    std::vector<int32_t> ids{1};
    const auto e = tok->encode("hello");
    ids.insert(ids.end(), e.begin(), e.end());
    sentencepiece::SentencePieceProcessor reference;
    ASSERT_TRUE(reference.Load(user_defined_path_.string()).ok());
    std::string native;
    ASSERT_TRUE(reference.Decode(std::vector<int>(ids.begin(), ids.end()), &native).ok());
    EXPECT_EQ(native, "hello");
    EXPECT_EQ(tok->decode(ids, true), native);
}

TEST_F(TextSentencePiece, MessyBytesRoundTripExactly) {
    for (const auto& path : {user_defined_path_, control_path_}) {
        auto tok = SentencePieceTokenizer::load(path);
        for (unsigned seed = 0; seed < 300; ++seed) {
            const std::string s = tt::messy_text(seed, true);
            for (bool parse_special : {false, true}) {
                const auto e = tok->encode(s, parse_special);
                ASSERT_EQ(tok->decode(e), s) << path << " seed " << seed << " parse_special " << parse_special;
                if (!parse_special) {
                    for (int32_t id : e) ASSERT_FALSE(tok->is_special(id)) << "seed " << seed;
                }
            }
        }
    }
}

TEST_F(TextSentencePiece, MalformedModelFiles) {
    tt::TempDir dir;
    const auto garbage = dir / "garbage.model";
    tt::write_file(garbage, std::string("\xFF\xFF\xFF\xFF\x0F\x12\x34 this is not a model"));
    expect_error([&] { SentencePieceTokenizer::load(garbage); }, {garbage.string(), "SentencePiece model"});

    const auto empty = dir / "empty.model";
    tt::write_file(empty, "");
    expect_error([&] { SentencePieceTokenizer::load(empty); }, {empty.string(), "empty"});

    const auto text = dir / "text.model";
    tt::write_file(text, "{\"this\": \"is json\"}\n");
    expect_error([&] { SentencePieceTokenizer::load(text); }, {text.string()});

    const std::string good = tt::read_file(user_defined_path_);
    const auto truncated = dir / "truncated.model";
    tt::write_file(truncated, good.substr(0, good.size() / 2));
    expect_error([&] { SentencePieceTokenizer::load(truncated); }, {truncated.string()});

    expect_error([&] { SentencePieceTokenizer::load(dir / "missing.model"); }, {"missing.model", "cannot open"});
}

}  // namespace
}  // namespace dlm
