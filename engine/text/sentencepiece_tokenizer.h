#pragma once
// SentencePiece .model files through libsentencepiece (the types stay in the .cpp).
//
// Rules this class adds on top of the library, so both tokenizers behave alike:
// - parse_special = false: text that spells a special piece (e.g. "<|eot|>") is encoded as
//   ordinary text and never yields a special id. SentencePiece itself always matches
//   USER_DEFINED pieces, so the text is cut inside each such spelling and the parts are encoded
//   separately (a one-character special spelling is written with byte-fallback pieces).
// - parse_special = true: CONTROL, USER_DEFINED and <unk> spellings in the text become their ids.
// - The dummy prefix ("▁" the model adds in front of a text, when add_dummy_prefix is on) is added
//   only to the text at the very start (after nothing but CONTROL pieces); decode() drops it in the
//   same place. So decode(encode(s, p)) == s for models with identity normalization and without
//   remove_extra_whitespaces, for any byte string s and either p: invalid UTF-8 bytes and a literal
//   "▁" are spelled with BYTE pieces (libsentencepiece alone would give U+FFFD and a space). Needs
//   byte_fallback; without it those bytes stay lossy, as in the library.
// - decode() gives the exact bytes of byte-fallback pieces (no U+FFFD for a cut character),
//   renders special pieces as their text unless skip_special, and <unk> as " ⁇ " like the library.
#include <filesystem>
#include <memory>
#include <string>

#include "text/tokenizer.h"

namespace dlm {

class SentencePieceTokenizer final : public Tokenizer {
public:
    // Throws dlm::Error naming the file when it cannot be read or is not a SentencePiece model.
    static std::unique_ptr<SentencePieceTokenizer> load(const std::filesystem::path& model_file);
    // A serialized ModelProto; `source` names it in error messages.
    static std::unique_ptr<SentencePieceTokenizer> from_serialized(std::string_view model_proto,
                                                                   const std::string& source);
    ~SentencePieceTokenizer() override;

    std::string kind() const override { return "sentencepiece"; }
    std::vector<int32_t> encode(std::string_view text, bool parse_special = false) const override;
    std::string decode(const std::vector<int32_t>& ids, bool skip_special = false) const override;
    // "▁" as a space; <0xNN> as the byte when it is ASCII (complete UTF-8 on its own); special
    // pieces as written; ids outside the vocabulary as "<unused:ID>".
    std::string token_text(int32_t id) const override;
    bool is_special(int32_t id) const override;  // CONTROL, USER_DEFINED, UNKNOWN
    int vocab_size() const override;
    std::optional<int32_t> token_id(std::string_view piece) const override;

private:
    struct Impl;
    explicit SentencePieceTokenizer(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

}  // namespace dlm
