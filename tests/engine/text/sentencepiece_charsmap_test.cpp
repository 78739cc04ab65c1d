// A SentencePiece model's compiled normalisation rules (precompiled_charsmap) are checked before
// libsentencepiece walks them: a real rule set loads and applies, and corrupt ones are refused
// with the file named instead of crashing the first encode.
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <random>
#include <sstream>

#include "support/error_text.h"
#include "text/sentencepiece_charsmap.h"
#include "text/sentencepiece_tokenizer.h"

namespace dlm {
namespace {

std::string read_bytes(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}

std::string model_bytes() { return read_bytes(std::string(DLM_TEST_DATA_DIR) + "/spm-case-folding/tokenizer.model"); }

// Minimal protobuf wire helpers: enough to find and append a normalizer_spec.
uint64_t varint(const std::string& d, std::size_t& p) {
    uint64_t v = 0;
    for (int s = 0;; s += 7) {
        const auto b = static_cast<unsigned char>(d.at(p++));
        v |= uint64_t(b & 0x7F) << s;
        if (!(b & 0x80)) return v;
    }
}
std::string put_varint(uint64_t v) {
    std::string out;
    do {
        unsigned char b = v & 0x7F;
        v >>= 7;
        if (v) b |= 0x80;
        out += static_cast<char>(b);
    } while (v);
    return out;
}
std::string length_delimited(int field, const std::string& payload) {
    return put_varint(uint64_t(field) << 3 | 2) + put_varint(payload.size()) + payload;
}

// The charsmap of the model's normalizer_spec (field 3, its field 2).
std::string charsmap_of(const std::string& model) {
    std::size_t p = 0;
    while (p < model.size()) {
        const uint64_t key = varint(model, p);
        const auto field = key >> 3, wire = key & 7;
        if (wire == 0) { varint(model, p); continue; }
        if (wire == 1) { p += 8; continue; }
        if (wire == 5) { p += 4; continue; }
        const std::string body = model.substr(p, varint(model, p));
        p += body.size();
        if (field != 3) continue;
        std::size_t q = 0;
        while (q < body.size()) {
            const uint64_t k = varint(body, q);
            if ((k & 7) == 0) { varint(body, q); continue; }
            const std::string v = body.substr(q, varint(body, q));
            q += v.size();
            if ((k >> 3) == 2) return v;
        }
    }
    return {};
}

// The same model with its normalizer's (or denormalizer's) charsmap replaced: protobuf merges a
// repeated embedded message, so an appended spec overrides just that field.
std::string with_charsmap(const std::string& model, const std::string& blob, int spec_field = 3) {
    return model + length_delimited(spec_field, length_delimited(2, blob));
}

TEST(TextSentencePieceCharsmap, PublishedFormLoadsAndApplies) {
    const std::string model = model_bytes();
    ASSERT_FALSE(model.empty());
    const std::string blob = charsmap_of(model);
    ASSERT_EQ(blob.size(), 1036u);
    EXPECT_NO_THROW(check_precompiled_charsmap(blob, "m", "normalizer"));
    auto tok = SentencePieceTokenizer::from_serialized(model, "case-folding");
    EXPECT_EQ(tok->encode("ABC cab"), tok->encode("abc cab"));  // the rules fold A, B, C
}

TEST(TextSentencePieceCharsmap, BrokenHeadersAreRefused) {
    const std::string blob = charsmap_of(model_bytes());
    auto message = [](const std::string& b) { return test::error_of([&] { check_precompiled_charsmap(b, "m.model", "normalizer"); }); };
    EXPECT_NE(message("\x01\x02").find("shorter than its 4-byte header"), std::string::npos);
    std::string too_big = blob;
    too_big[3] = '\x7F';
    EXPECT_NE(message(too_big).find("-byte trie in a 1036-byte blob"), std::string::npos) << message(too_big);
    std::string no_nul = blob;
    no_nul.back() = 'x';
    EXPECT_NE(message(no_nul).find("NUL"), std::string::npos);
    EXPECT_NE(message(no_nul).find("m.model"), std::string::npos);
    EXPECT_EQ(message(""), "(no error)");  // no rules at all is fine
}

// Single-unit corruptions of the trie, through the whole loader: each is refused with a
// dlm::Error or loads and encodes; none may crash (ASan runs this too).
TEST(TextSentencePieceCharsmap, CorruptTriesNeverReachTheLibraryUnchecked) {
    const std::string model = model_bytes();
    const std::string blob = charsmap_of(model);
    std::mt19937 rng(7);
    int refused = 0, loaded = 0;
    for (int i = 0; i < 600; ++i) {
        std::string b = blob;
        const std::size_t unit = rng() % 256;
        uint32_t v = rng();
        if (i % 3 == 0) v &= 0x3FFFFFFF;                           // plausible offsets
        if (i % 3 == 1) v = (v & ~0xFFu) | (uint32_t(rng()) & 0xFF);  // keep a label byte
        for (int k = 0; k < 4; ++k) b[4 + 4 * unit + k] = static_cast<char>(v >> (8 * k));
        const std::string corrupt = with_charsmap(model, b, i % 5 == 0 ? 5 : 3);
        try {
            auto tok = SentencePieceTokenizer::from_serialized(corrupt, "corrupt.model");
            tok->encode("ABC abc \xEF\xBC\xA1 the cat");
            for (int c = 1; c < 256; ++c) tok->encode(std::string(1, static_cast<char>(c)) + "A");
            ++loaded;
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find("corrupt.model"), std::string::npos) << e.what();
            ++refused;
        }
    }
    EXPECT_GT(refused, 10);  // the units the search can reach
    EXPECT_EQ(refused + loaded, 600);
}

}  // namespace
}  // namespace dlm

namespace dlm {
namespace {

// A model with an empty piece made libsentencepiece's trie builder throw from inside the loader
// (found by the tokenizer.model fuzz target): refused by our reader with the file named.
TEST(TextSentencePieceModel, EmptyPieceIsARefusal) {
    std::ifstream f(std::string(DLM_SOURCE_DIR) + "/tests/fuzz/seeds/sentencepiece-empty-piece.model", std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    ASSERT_FALSE(ss.str().empty());
    const std::string msg = test::error_of([&] { SentencePieceTokenizer::from_serialized(ss.str(), "bad.model"); });
    EXPECT_NE(msg.find("bad.model"), std::string::npos) << msg;
}

}  // namespace
}  // namespace dlm
