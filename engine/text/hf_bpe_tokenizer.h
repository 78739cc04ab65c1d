#pragma once
// Hugging Face tokenizer.json, byte-level BPE (GPT-2, Llama 3, Qwen2/Dream, LLaDA), written in the
// engine: added tokens -> normalizer -> pre_tokenizer (regex verbatim, PCRE2) -> GPT-2 byte map
// -> BPE by merge rank. decode() is its exact inverse on bytes.
//
// Byte exactness: any byte string encodes, including invalid UTF-8 (each invalid byte becomes its
// own byte-level symbol), and decode(encode(s)) == s whenever the normalizer leaves s unchanged.
// decode() returns the bytes the tokens spell; a sequence cut in the middle of a character (or
// ids that spell invalid UTF-8) gives those raw bytes, not U+FFFD. Display code that needs valid
// UTF-8 uses token_text() or its own replacement.
#include <filesystem>
#include <memory>
#include <string>

#include "text/tokenizer.h"

namespace dlm {

struct HfTokenizerSpec;

class HfBpeTokenizer final : public Tokenizer {
public:
    // Reads and validates tokenizer.json; throws dlm::Error naming the file on any problem.
    static std::unique_ptr<HfBpeTokenizer> load(const std::filesystem::path& tokenizer_json);
    // Same from text; `source` names the origin in error messages.
    static std::unique_ptr<HfBpeTokenizer> from_json(std::string_view json_text, const std::string& source);
    // Reads the slow form of a folder: vocab.json + merges.txt (+ tokenizer_config.json,
    // added_tokens.json, special_tokens_map.json); see read_hf_slow_tokenizer_files.
    static std::unique_ptr<HfBpeTokenizer> load_vocab_merges(const std::filesystem::path& dir);

    explicit HfBpeTokenizer(const HfTokenizerSpec& spec);
    ~HfBpeTokenizer() override;

    std::string kind() const override { return "hf-bpe"; }
    std::vector<int32_t> encode(std::string_view text, bool parse_special = false) const override;
    std::string decode(const std::vector<int32_t>& ids, bool skip_special = false) const override;
    // Vocabulary tokens as their bytes (complete UTF-8 kept, stray bytes as "<0xNN>"); added
    // tokens as their content; ids the tokenizer does not know as "<unused:ID>".
    std::string token_text(int32_t id) const override;
    bool is_special(int32_t id) const override;
    int vocab_size() const override;
    // Exact lookup: added-token content first, then the vocabulary's own spelling ("Ġhello").
    std::optional<int32_t> token_id(std::string_view piece) const override;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace dlm
