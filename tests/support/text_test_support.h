#pragma once
// Fixtures shared by the Text* tests: a temp folder, a hand-written byte-level BPE tokenizer.json
// whose ids can be derived on paper, and tiny SentencePiece models trained on the spot.
#include <gtest/gtest.h>
#include <sentencepiece_trainer.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <unistd.h>

#include "support/scratch_dir.h"
#include "util/error.h"

namespace dlm::text_test {

class TempDir : public dlm::test::ScratchDir {
public:
    TempDir() : ScratchDir("dlm-text-test") {}
};

using dlm::test::write_file;

inline std::string read_file(const std::filesystem::path& p) {
    std::ifstream f(p, std::ios::binary);
    std::ostringstream s;
    s << f.rdbuf();
    return s.str();
}

// Runs `fn`, expects a dlm::Error whose message contains every one of `parts`; returns the message.
inline std::string expect_error(const std::function<void()>& fn, std::initializer_list<std::string> parts) {
    try {
        fn();
    } catch (const dlm::Error& e) {
        const std::string msg = e.what();
        for (const auto& p : parts) EXPECT_NE(msg.find(p), std::string::npos) << "missing \"" << p << "\" in: " << msg;
        return msg;
    } catch (const std::exception& e) {
        ADD_FAILURE() << "expected dlm::Error, got another exception: " << e.what();
        return {};
    }
    ADD_FAILURE() << "expected dlm::Error, nothing was thrown";
    return {};
}

// ---------------------------------------------------------------------------------------------
// The hand-written tokenizer.json.
//
// Ids 0..255 are the 256 single byte-level symbols, and the id of each is the byte it stands for
// (so "h" = 104, "Ġ" = space = 32, "Ċ" = '\n' = 10, "č" = '\r' = 13). Merges add ids 256.. in
// rank order, listed in kMerges. Ids 273..299 are left unused on purpose (holes), and the added
// tokens sit at 300..304. Pre-tokenizer: Qwen2's Split regex (verbatim) + ByteLevel without regex;
// normalizer: NFC. So ids can be worked out on paper:
//   "hello"  -> h e l l o -> he(256) l l o -> he ll(257) o -> hell(258) o -> hello(259)
//   " world" -> Ġ w o r l d -> Ġw(260) o r l d -> Ġw or(261) l d -> Ġwor(262) -> Ġworl(263) -> Ġworld(264)
// ---------------------------------------------------------------------------------------------
inline const char* kQwen2Pattern =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";

// {left, right}; merged token id = 256 + index
inline const std::vector<std::pair<std::string, std::string>> kMerges = {
    {"h", "e"},           // 256 he
    {"l", "l"},           // 257 ll
    {"he", "ll"},         // 258 hell
    {"hell", "o"},        // 259 hello
    {"\xC4\xA0", "w"},    // 260 Ġw
    {"o", "r"},           // 261 or
    {"\xC4\xA0w", "or"},  // 262 Ġwor
    {"\xC4\xA0wor", "l"}, // 263 Ġworl
    {"\xC4\xA0worl", "d"},// 264 Ġworld
    {"2", "0"},           // 265 20   (never used under the Qwen2 regex: digits are split one by one)
    {"'", "s"},           // 266 's
    {"i", "t"},           // 267 it
    {"\xC4\xA0", "\xC4\xA0"},  // 268 ĠĠ
    {"\xC4\xA0", "b"},         // 269 Ġb
    {"\xC4\x8D", "\xC4\x8A"},  // 270 čĊ  ("\r\n")
    {"\xC3\x83", "\xC2\xA9"},  // 271 Ã©  (the bytes C3 A9 of "é")
};
inline constexpr int32_t kHello = 259, kSpaceWorld = 264, kTwenty = 265, kApostropheS = 266, kIt = 267,
                         kTwoSpaces = 268, kSpaceB = 269, kCrLf = 270, kEAcute = 271;
inline constexpr int32_t kSpaceHelloWhole = 272;  // "Ġhello": in the vocab, but no merge path leads to it
inline constexpr int32_t kEndOfText = 300, kImStart = 301, kImEnd = 302, kNote = 303, kMaskLstrip = 304;

inline std::string byte_symbol(int b);  // defined below

enum class MergeForm { String, Pair };

inline nlohmann::json hf_fixture(MergeForm form = MergeForm::String) {
    using nlohmann::json;
    json vocab = json::object();
    for (int b = 0; b < 256; ++b) vocab[byte_symbol(b)] = b;
    json merges = json::array();
    for (std::size_t i = 0; i < kMerges.size(); ++i) {
        const auto& [l, r] = kMerges[i];
        vocab[l + r] = 256 + static_cast<int>(i);
        if (form == MergeForm::String) merges.push_back(l + " " + r);
        else merges.push_back(json::array({l, r}));
    }
    vocab["\xC4\xA0hello"] = kSpaceHelloWhole;
    const auto added = [](int id, const char* content, bool special, bool lstrip = false) {
        return json{{"id", id}, {"content", content}, {"single_word", false}, {"lstrip", lstrip},
                    {"rstrip", false}, {"normalized", false}, {"special", special}};
    };
    return json{
        {"version", "1.0"},
        {"truncation", nullptr},
        {"padding", nullptr},
        {"added_tokens", json::array({added(kEndOfText, "<|endoftext|>", true), added(kImStart, "<|im_start|>", true),
                                      added(kImEnd, "<|im_end|>", true), added(kNote, "[NOTE]", false),
                                      added(kMaskLstrip, "<mask>", true, true)})},
        {"normalizer", {{"type", "NFC"}}},
        {"pre_tokenizer",
         {{"type", "Sequence"},
          {"pretokenizers",
           json::array({json{{"type", "Split"}, {"pattern", {{"Regex", kQwen2Pattern}}}, {"behavior", "Isolated"},
                             {"invert", false}},
                        json{{"type", "ByteLevel"}, {"add_prefix_space", false}, {"trim_offsets", false},
                             {"use_regex", false}}})}}},
        {"post_processor", {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"trim_offsets", false}, {"use_regex", false}}},
        {"decoder", {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"trim_offsets", false}, {"use_regex", false}}},
        {"model",
         {{"type", "BPE"}, {"dropout", nullptr}, {"unk_token", nullptr}, {"continuing_subword_prefix", ""},
          {"end_of_word_suffix", ""}, {"fuse_unk", false}, {"byte_fallback", false}, {"ignore_merges", false},
          {"vocab", vocab}, {"merges", merges}}},
    };
}

// GPT-2 bytes_to_unicode, written out independently of the engine's table.
inline std::string byte_symbol(int b) {
    int cp = b;
    const bool printable = (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
    if (!printable) {
        int n = 0;
        for (int x = 0; x < b; ++x) {
            const bool p = (x >= 0x21 && x <= 0x7E) || (x >= 0xA1 && x <= 0xAC) || (x >= 0xAE && x <= 0xFF);
            if (!p) ++n;
        }
        cp = 256 + n;
    }
    std::string s;
    if (cp < 0x80) s += static_cast<char>(cp);
    else {
        s += static_cast<char>(0xC0 | (cp >> 6));
        s += static_cast<char>(0x80 | (cp & 0x3F));
    }
    return s;
}

// ---------------------------------------------------------------------------------------------
// Tiny SentencePiece models, trained in the test on a generated corpus.
// ---------------------------------------------------------------------------------------------
inline std::string sentencepiece_corpus() {
    const char* words[] = {"the", "model", "token", "mask", "diffusion", "hello", "world", "step", "lock",
                           "cache", "prompt", "answer", "text", "grid", "value", "state", "code", "list"};
    std::string out;
    unsigned x = 12345;
    for (int line = 0; line < 600; ++line) {
        const int n = 4 + line % 7;
        for (int w = 0; w < n; ++w) {
            x = x * 1103515245u + 12345u;
            if (w) out += ' ';
            out += words[(x >> 16) % (sizeof words / sizeof *words)];
        }
        out += line % 3 == 0 ? ".\n" : line % 3 == 1 ? ", and more: 42 + 7 = 49!\n" : "?\n";
    }
    return out;
}

// Trains a BPE model into `dir`/`name`.model. `extra` holds more spm_train flags.
inline std::filesystem::path train_sentencepiece(const std::filesystem::path& dir, const std::string& name,
                                                 const std::string& extra) {
    const auto corpus = dir / (name + ".txt");
    write_file(corpus, sentencepiece_corpus());
    const std::string args = "--input=" + corpus.string() + " --model_prefix=" + (dir / name).string() +
                             " --model_type=bpe --vocab_size=400 --hard_vocab_limit=false --byte_fallback=true"
                             " --character_coverage=1.0 --normalization_rule_name=identity"
                             " --remove_extra_whitespaces=false --num_threads=1 --minloglevel=2 " +
                             extra;
    const auto status = sentencepiece::SentencePieceTrainer::Train(args);
    EXPECT_TRUE(status.ok()) << status.ToString();
    return dir / (name + ".model");
}

// User-defined specials as in the brief; default dummy prefix (like most SentencePiece LMs).
inline std::string user_defined_model_flags() {
    return "--user_defined_symbols=<|mask|>,<|eot|>,<|user|>,<|assistant|>,<|endoftext|>";
}

// The embedded dlmscope-tiny layout (tools/train): CONTROL specials, eos <|endoftext|>, no dummy prefix.
inline std::string control_model_flags() {
    return "--control_symbols=<|mask|>,<|eot|>,<|user|>,<|assistant|> --eos_piece=<|endoftext|>"
           " --add_dummy_prefix=false --split_digits=true";
}

}  // namespace dlm::text_test

namespace dlm::text_test {

// Deterministic messy strings: ASCII words, runs of whitespace, multi-byte characters (combining
// marks, emoji with ZWJ / skin tones, CJK), special-token spellings and, if asked, invalid bytes.
inline std::string messy_text(unsigned seed, bool allow_invalid) {
    static const char* atoms[] = {"a", "the", " ", "  ", "\t", "\n", "\r\n", "42", "'s", "hello", "world", "é",
                                  "e\xCC\x81", "你好", "مرحبا", "नमस्ते", "😀", "👍🏽", "👩‍👩‍👧", "<|eot|>", "<|user|>",
                                  "<|endoftext|>", "<|im_start|>", "[NOTE]", "{", "}", ";", "->", "\xE2\x96\x81", "\0"};
    static const char* invalid[] = {"\x80", "\xFF", "\xC3", "\xED\xA0\x80", "\xF0\x9F", "\xC0\xAF"};
    unsigned x = seed * 2654435761u + 1;
    const auto next = [&] {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        return x;
    };
    std::string s;
    const int n = static_cast<int>(next() % 24);
    for (int i = 0; i < n; ++i) {
        if (allow_invalid && next() % 6 == 0) {
            s += invalid[next() % (sizeof invalid / sizeof *invalid)];
            continue;
        }
        const char* a = atoms[next() % (sizeof atoms / sizeof *atoms)];
        if (*a == 0) s += '\0';
        else s += a;
    }
    return s;
}

}  // namespace dlm::text_test
