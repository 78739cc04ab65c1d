// HfBpeTokenizer against the hand-written tokenizer.json of text_test_support.h: ids derived on
// paper, both merges encodings, byte-exact round trips and every kind of malformed file.
#include <gtest/gtest.h>

#include "text/hf_bpe_tokenizer.h"
#include "support/text_test_support.h"

namespace dlm {
namespace {

using nlohmann::json;
using text_test::expect_error;
using text_test::hf_fixture;
using text_test::MergeForm;
namespace tt = text_test;

std::unique_ptr<HfBpeTokenizer> make(const json& j) { return HfBpeTokenizer::from_json(j.dump(), "fixture/tokenizer.json"); }

std::vector<int32_t> ids(std::initializer_list<int32_t> l) { return std::vector<int32_t>(l); }

TEST(TextHfBpe, HelloWorldGivesTheHandDerivedIds) {
    auto tok = make(hf_fixture());
    EXPECT_EQ(tok->encode("hello world"), ids({tt::kHello, tt::kSpaceWorld}));
    EXPECT_EQ(tok->decode({tt::kHello, tt::kSpaceWorld}), "hello world");
    EXPECT_EQ(tok->kind(), "hf-bpe");
}

TEST(TextHfBpe, BothMergesFormsGiveIdenticalResults) {
    auto legacy = make(hf_fixture(MergeForm::String));
    auto pairs = make(hf_fixture(MergeForm::Pair));
    for (const char* s : {"hello world", "it's 2024\r\n", "a   b", "e\xCC\x81t\xC3\xA9", "lll hello"})
        EXPECT_EQ(legacy->encode(s), pairs->encode(s)) << s;
    EXPECT_EQ(pairs->encode("hello world"), ids({tt::kHello, tt::kSpaceWorld}));
}

TEST(TextHfBpe, EqualRanksMergeLeftmostFirst) {
    auto tok = make(hf_fixture());
    // "lll": the pairs (l,l) at 0 and at 1 have the same rank; the left one wins -> ll l
    EXPECT_EQ(tok->encode("lll"), ids({257, 'l'}));
}

TEST(TextHfBpe, Qwen2RegexIsUsedVerbatim) {
    auto tok = make(hf_fixture());
    // \p{N} alone: every digit is its own word, so the merge "2 0" never applies.
    EXPECT_EQ(tok->encode("2024"), ids({'2', '0', '2', '4'}));
    // Case-insensitive contractions: "it" + "'s".
    EXPECT_EQ(tok->encode("it's"), ids({tt::kIt, tt::kApostropheS}));
    // \s+(?!\S): of three spaces, the last goes to the next word -> "a" "  " " b".
    EXPECT_EQ(tok->encode("a   b"), ids({'a', tt::kTwoSpaces, tt::kSpaceB}));
    // \s*[\r\n]+ keeps CR LF together.
    EXPECT_EQ(tok->encode("a\r\nb"), ids({'a', tt::kCrLf, 'b'}));
}

TEST(TextHfBpe, ByteLevelWithGpt2RegexKeepsDigitRuns) {
    json j = hf_fixture();
    j["pre_tokenizer"] = {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", true}};
    auto tok = make(j);
    // GPT-2's " ?\p{N}+" keeps "2024" whole, so "2 0" merges: 20 2 4.
    EXPECT_EQ(tok->encode("2024"), ids({tt::kTwenty, '2', '4'}));
    EXPECT_EQ(tok->encode("hello world"), ids({tt::kHello, tt::kSpaceWorld}));
}

TEST(TextHfBpe, ByteLevelAddPrefixSpace) {
    json j = hf_fixture();
    j["pre_tokenizer"] = {{"type", "ByteLevel"}, {"add_prefix_space", true}, {"use_regex", true}};
    auto tok = make(j);
    // "world" becomes " world" before BPE.
    EXPECT_EQ(tok->encode("world"), ids({tt::kSpaceWorld}));
}

TEST(TextHfBpe, IgnoreMergesTakesWholeWordsFromTheVocab) {
    json j = hf_fixture();
    EXPECT_EQ(make(j)->encode(" hello"), ids({' ', tt::kHello}));  // no merge joins Ġ and hello
    j["model"]["ignore_merges"] = true;
    EXPECT_EQ(make(j)->encode(" hello"), ids({tt::kSpaceHelloWhole}));
    EXPECT_EQ(make(j)->encode(" world"), ids({tt::kSpaceWorld}));
}

TEST(TextHfBpe, NfcNormalizerComposesBeforeBpe) {
    auto tok = make(hf_fixture());
    // e + U+0301 COMBINING ACUTE -> U+00E9 (bytes C3 A9) -> merge "Ã ©".
    EXPECT_EQ(tok->encode("e\xCC\x81"), ids({tt::kEAcute}));
    EXPECT_EQ(tok->encode("\xC3\xA9"), ids({tt::kEAcute}));
    // Decoding gives the normalized (composed) text, not the decomposed input.
    EXPECT_EQ(tok->decode(tok->encode("e\xCC\x81")), "\xC3\xA9");
}

TEST(TextHfBpe, NoNormalizerKeepsDecomposedText) {
    json j = hf_fixture();
    j["normalizer"] = nullptr;
    auto tok = make(j);
    EXPECT_EQ(tok->decode(tok->encode("e\xCC\x81")), "e\xCC\x81");
    j["normalizer"] = {{"type", "Sequence"}, {"normalizers", json::array({json{{"type", "NFD"}}, json{{"type", "NFC"}}})}};
    EXPECT_EQ(make(j)->encode("e\xCC\x81"), ids({tt::kEAcute}));
}

TEST(TextHfBpe, RoundTripsAreByteExact) {
    auto tok = make(hf_fixture());
    const std::vector<std::string> texts = {
        "",
        "Hello, World! The quick brown fox.",
        "你好，世界。中文和日本語のテキスト",
        "مرحبا بالعالم",
        "नमस्ते दुनिया",
        "Ελληνικά και Русский текст",
        "emoji: 😀 👍🏽 👩‍👩‍👧‍👦 🏳️‍🌈 ❤️",
        "\ttabs\t\tand    many     spaces   \r\nCRLF\r\n\n\nblank lines  \n trailing   ",
        "   leading spaces",
        "int main() {\n    return a[i] + b->c; // x != y && z >= 3\n}\n",
        "mixed 123 4567 numbers 1.5e-3 and 'quotes' \"double\" it's I'M we'll",
        std::string("nul \0 inside", 12),
        "\x01\x02\x1b[31mcontrol bytes\x7f",
    };
    for (const auto& s : texts) {
        const auto encoded = tok->encode(s);
        EXPECT_EQ(tok->decode(encoded), s) << s;
        for (int32_t id : encoded) EXPECT_FALSE(tok->is_special(id));
    }
}

TEST(TextHfBpe, InvalidUtf8EncodesAndDecodesToTheSameBytes) {
    auto tok = make(hf_fixture());
    // Stray continuation, truncated sequence, overlong '/', surrogate, > U+10FFFF, 0xFF: each
    // invalid byte is a byte-level symbol of its own, so decode() returns the input bytes exactly.
    const std::vector<std::string> texts = {
        "\x80", "abc\xC3", "\xC0\xAF", "x\xED\xA0\x80y", "\xF4\x90\x80\x80", "\xFF\xFE hello \xFF world",
        "caf\xC3\xA9\xE9 ok", "e\xCC\x81\xFF" "e\xCC\x81",
    };
    for (const auto& s : texts) {
        std::vector<int32_t> encoded;
        ASSERT_NO_THROW(encoded = tok->encode(s)) << s;
        EXPECT_FALSE(encoded.empty());
        // NFC still composes the valid runs around invalid bytes.
        const std::string expected = s == "e\xCC\x81\xFF" "e\xCC\x81" ? "\xC3\xA9\xFF\xC3\xA9" : s;
        EXPECT_EQ(tok->decode(encoded), expected);
    }
    EXPECT_EQ(tok->encode("\xFF"), ids({0xFF}));
}

TEST(TextHfBpe, PartialCharacterDecodesToItsRawBytes) {
    auto tok = make(hf_fixture());
    // "😀" is F0 9F 98 80: four byte symbols (no merges). Decoding the first two gives those two
    // bytes as they are (no U+FFFD); token_text shows each stray byte as <0xNN>.
    const auto e = tok->encode("😀");
    ASSERT_EQ(e, ids({0xF0, 0x9F, 0x98, 0x80}));
    EXPECT_EQ(tok->decode({0xF0, 0x9F}), "\xF0\x9F");
    EXPECT_EQ(tok->token_text(0xF0), "<0xF0>");
    EXPECT_EQ(tok->token_text(tt::kEAcute), "\xC3\xA9");
    EXPECT_EQ(tok->token_text(tt::kSpaceWorld), " world");
    EXPECT_EQ(tok->token_text('\n'), "\n");
}

TEST(TextHfBpe, SpecialAddedTokensOnlyWhenParsingSpecials) {
    auto tok = make(hf_fixture());
    EXPECT_EQ(tok->encode("hello<|endoftext|>", true), ids({tt::kHello, tt::kEndOfText}));
    const auto literal = tok->encode("hello<|endoftext|>", false);
    for (int32_t id : literal) EXPECT_FALSE(tok->is_special(id)) << id;
    EXPECT_EQ(tok->decode(literal), "hello<|endoftext|>");
    // Longest match first: "<|im_start|>" is matched whole, not cut at a shorter token.
    EXPECT_EQ(tok->encode("<|im_start|>hello<|im_end|>", true), ids({tt::kImStart, tt::kHello, tt::kImEnd}));
}

TEST(TextHfBpe, NonSpecialAddedTokensAreAlwaysMatched) {
    auto tok = make(hf_fixture());
    EXPECT_EQ(tok->encode("x[NOTE]y", false), ids({'x', tt::kNote, 'y'}));
    EXPECT_EQ(tok->encode("x[NOTE]y", true), ids({'x', tt::kNote, 'y'}));
    EXPECT_FALSE(tok->is_special(tt::kNote));
    EXPECT_EQ(tok->decode({tt::kNote}, /*skip_special=*/true), "[NOTE]");
}

TEST(TextHfBpe, LstripAddedTokenSwallowsTheSpaceBeforeIt) {
    auto tok = make(hf_fixture());
    EXPECT_EQ(tok->encode("a <mask>", true), ids({'a', tt::kMaskLstrip}));
}

TEST(TextHfBpe, DecodeSkipsSpecialsOnRequest) {
    auto tok = make(hf_fixture());
    const auto e = ids({tt::kImStart, tt::kHello, tt::kSpaceWorld, tt::kImEnd, tt::kEndOfText});
    EXPECT_EQ(tok->decode(e, false), "<|im_start|>hello world<|im_end|><|endoftext|>");
    EXPECT_EQ(tok->decode(e, true), "hello world");
    EXPECT_EQ(tok->token_text(tt::kImEnd), "<|im_end|>");
    EXPECT_TRUE(tok->is_special(tt::kImEnd));
    EXPECT_FALSE(tok->is_special(tt::kHello));
}

TEST(TextHfBpe, VocabularyLookupAndHoles) {
    auto tok = make(hf_fixture());
    EXPECT_EQ(tok->vocab_size(), 305);  // ids 0..304, with 273..299 unused
    EXPECT_EQ(tok->token_id("<|im_start|>"), tt::kImStart);
    EXPECT_EQ(tok->token_id("hello"), tt::kHello);
    EXPECT_EQ(tok->token_id("\xC4\xA0world"), tt::kSpaceWorld);  // vocabulary spelling
    EXPECT_EQ(tok->token_id("nope"), std::nullopt);
    // Ids the tokenizer does not know (embedding rows past the vocabulary) never crash.
    EXPECT_EQ(tok->token_text(280), "<unused:280>");
    EXPECT_EQ(tok->token_text(-1), "<unused:-1>");
    EXPECT_EQ(tok->token_text(99999), "<unused:99999>");
    EXPECT_EQ(tok->decode({tt::kHello, 280, 99999, -5}), "hello");
    EXPECT_FALSE(tok->is_special(99999));
}

TEST(TextHfBpe, SplitBehaviors) {
    json j = hf_fixture();
    const auto with_split = [&](const char* behavior, bool invert = false) {
        json p = j;
        p["pre_tokenizer"] = {{"type", "Sequence"},
                              {"pretokenizers",
                               json::array({json{{"type", "Split"}, {"pattern", {{"String", " "}}}, {"behavior", behavior},
                                                 {"invert", invert}},
                                            json{{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", false}}})}};
        return make(p);
    };
    // Removed: the spaces vanish -> "hello" "world" (no Ġ, so only o+r merges in "world").
    EXPECT_EQ(with_split("Removed")->encode("hello world"), ids({tt::kHello, 'w', 261, 'l', 'd'}));
    // Isolated: "hello" " " "world".
    EXPECT_EQ(with_split("Isolated")->encode("hello world"), ids({tt::kHello, ' ', 'w', 261, 'l', 'd'}));
    // MergedWithNext: "hello" " world".
    EXPECT_EQ(with_split("MergedWithNext")->encode("hello world"), ids({tt::kHello, tt::kSpaceWorld}));
    // MergedWithPrevious: "hello " "world" (no merge for "o Ġ").
    EXPECT_EQ(with_split("MergedWithPrevious")->encode("hello world"), ids({tt::kHello, ' ', 'w', 261, 'l', 'd'}));
    // Contiguous with an inverted pattern: runs of non-spaces are the matches; same as Isolated here.
    EXPECT_EQ(with_split("Contiguous", true)->encode("hello world"), ids({tt::kHello, ' ', 'w', 261, 'l', 'd'}));
}

TEST(TextHfBpe, UnknownByteWithoutUnkTokenIsDroppedNotCrashed) {
    json j = hf_fixture();
    j["model"]["vocab"].erase(tt::byte_symbol(0xFF));
    auto tok = make(j);
    EXPECT_EQ(tok->encode("a\xFF" "b"), ids({'a', 'b'}));
}

// ---- malformed files: each names the file and the problem --------------------------------------

TEST(TextHfBpeErrors, NotJson) {
    expect_error([] { HfBpeTokenizer::from_json("{\"model\": ", "dir/tokenizer.json"); },
                 {"dir/tokenizer.json", "not valid JSON"});
    expect_error([] { HfBpeTokenizer::from_json("[1, 2]", "dir/tokenizer.json"); }, {"top level", "object"});
}

TEST(TextHfBpeErrors, NoModel) {
    json j = hf_fixture();
    j.erase("model");
    expect_error([&] { make(j); }, {"fixture/tokenizer.json", "\"model\""});
}

TEST(TextHfBpeErrors, ModelTypeNotBpe) {
    for (const char* type : {"Unigram", "WordPiece", "WordLevel"}) {
        json j = hf_fixture();
        j["model"]["type"] = type;
        expect_error([&] { make(j); }, {std::string("\"") + type + "\"", "not supported", "BPE"});
    }
}

TEST(TextHfBpeErrors, MergeReferringToUnknownToken) {
    json j = hf_fixture();
    j["model"]["merges"].push_back("zz q");
    expect_error([&] { make(j); }, {"model.merges[16]", "\"zz\"", "not in model.vocab"});
    json k = hf_fixture(MergeForm::Pair);
    k["model"]["merges"].push_back(json::array({"h", "q"}));  // both known, but "hq" is not
    expect_error([&] { make(k); }, {"model.merges[16]", "\"hq\"", "not in model.vocab"});
}

TEST(TextHfBpeErrors, MalformedMergeEntries) {
    for (const json& bad : {json("nospace"), json("a b c"), json::array({"a"}), json(42)}) {
        json j = hf_fixture();
        j["model"]["merges"].push_back(bad);
        expect_error([&] { make(j); }, {"model.merges[16]"});
    }
}

TEST(TextHfBpeErrors, VocabIdsNotUnique) {
    json j = hf_fixture();
    j["model"]["vocab"]["duplicate"] = 5;
    expect_error([&] { make(j); }, {"not unique", "\"duplicate\"", "id 5"});
    json k = hf_fixture();
    k["model"]["vocab"]["negative"] = -3;
    expect_error([&] { make(k); }, {"model.vocab[\"negative\"]", "non-negative"});
}

TEST(TextHfBpeErrors, UnsupportedNormalizer) {
    json j = hf_fixture();
    j["normalizer"] = {{"type", "Lowercase"}};
    expect_error([&] { make(j); }, {"normalizer", "\"Lowercase\"", "not supported"});
}

TEST(TextHfBpeErrors, UnsupportedPreTokenizerAndBehavior) {
    json j = hf_fixture();
    j["pre_tokenizer"]["pretokenizers"][0]["behavior"] = "Sideways";
    expect_error([&] { make(j); }, {"pre_tokenizer.pretokenizers[0].behavior", "\"Sideways\"", "not supported"});
    json k = hf_fixture();
    k["pre_tokenizer"] = {{"type", "Metaspace"}, {"replacement", "_"}};
    expect_error([&] { make(k); }, {"\"Metaspace\"", "not supported"});
    json n = hf_fixture();
    n["pre_tokenizer"] = nullptr;
    expect_error([&] { make(n); }, {"no ByteLevel step"});
}

TEST(TextHfBpeErrors, RegexThatDoesNotCompile) {
    json j = hf_fixture();
    j["pre_tokenizer"]["pretokenizers"][0]["pattern"] = {{"Regex", "(unclosed"}};
    expect_error([&] { make(j); }, {"fixture/tokenizer.json", "(unclosed", "does not compile"});
}

TEST(TextHfBpeErrors, UnsupportedDecoder) {
    json j = hf_fixture();
    j["decoder"] = {{"type", "WordPiece"}};
    expect_error([&] { make(j); }, {"decoder", "\"WordPiece\""});
}

TEST(TextHfBpeErrors, AddedTokenConflicts) {
    json j = hf_fixture();
    j["added_tokens"].push_back({{"id", tt::kHello}, {"content", "<other>"}, {"special", true}});
    expect_error([&] { make(j); }, {"\"<other>\"", "model.vocab gives that id to \"hello\""});
    json k = hf_fixture();
    k["added_tokens"][0]["content"] = "";
    expect_error([&] { make(k); }, {"added_tokens[0].content is empty"});
}

TEST(TextHfBpeErrors, MissingFile) {
    expect_error([] { HfBpeTokenizer::load("/nonexistent/dir/tokenizer.json"); },
                 {"/nonexistent/dir/tokenizer.json", "cannot open"});
}

}  // namespace
}  // namespace dlm

namespace dlm {
namespace {

TEST(TextHfBpe, MessyBytesRoundTripExactly) {
    nlohmann::json j = text_test::hf_fixture();
    j["normalizer"] = nullptr;  // without NFC every byte string must come back unchanged
    auto tok = HfBpeTokenizer::from_json(j.dump(), "fixture");
    for (unsigned seed = 0; seed < 400; ++seed) {
        const std::string s = text_test::messy_text(seed, true);
        for (bool parse_special : {false, true}) {
            const auto e = tok->encode(s, parse_special);
            ASSERT_EQ(tok->decode(e), s) << "seed " << seed << " parse_special " << parse_special;
            if (!parse_special) {
                for (int32_t id : e) ASSERT_FALSE(tok->is_special(id)) << "seed " << seed;
            }
        }
    }
}

}  // namespace
}  // namespace dlm

#include <thread>

namespace dlm {
namespace {

TEST(TextHfBpe, ConcurrentEncodesAgreeWithSequentialOnes) {
    auto tok = HfBpeTokenizer::from_json(text_test::hf_fixture().dump(), "fixture");
    std::vector<std::vector<int32_t>> expected;
    for (unsigned seed = 0; seed < 200; ++seed) expected.push_back(tok->encode(text_test::messy_text(seed, true), true));
    auto fresh = HfBpeTokenizer::from_json(text_test::hf_fixture().dump(), "fixture");  // cold cache
    std::vector<std::thread> threads;
    std::atomic<int> mismatches{0};
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&, t] {
            for (unsigned seed = static_cast<unsigned>(t); seed < 200; ++seed)
                if (fresh->encode(text_test::messy_text(seed, true), true) != expected[seed]) ++mismatches;
        });
    for (auto& th : threads) th.join();
    EXPECT_EQ(mismatches.load(), 0);
}

}  // namespace
}  // namespace dlm
