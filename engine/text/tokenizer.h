#pragma once
// Text <-> token ids. Implementations: SentencePieceTokenizer (.model through libsentencepiece)
// and HfBpeTokenizer (Hugging Face tokenizer.json, byte-level BPE written in the engine).
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dlm {

class Tokenizer {
public:
    virtual ~Tokenizer() = default;
    virtual std::string kind() const = 0;  // "sentencepiece" or "hf-bpe"
    // Plain text to ids. Special tokens written in the text are matched only when
    // `parse_special` is true (templates insert them by id instead).
    virtual std::vector<int32_t> encode(std::string_view text, bool parse_special = false) const = 0;
    // Ids to text; special/control tokens are dropped when `skip_special` is true.
    virtual std::string decode(const std::vector<int32_t>& ids, bool skip_special = false) const = 0;
    // One token as display text (for the grid): bytes decoded as UTF-8 where complete,
    // special tokens as their literal piece (e.g. "<|eot|>").
    virtual std::string token_text(int32_t id) const = 0;
    virtual bool is_special(int32_t id) const = 0;
    virtual int vocab_size() const = 0;
    virtual std::optional<int32_t> token_id(std::string_view piece) const = 0;  // exact piece lookup
};

// Opens the tokenizer of a checkpoint folder, in this order of precedence: tokenizer.json, else
// vocab.json + merges.txt (the slow byte-level BPE form Dream publishes), else tokenizer.model.
// Throws dlm::Error naming the file when it is missing or malformed, and all three when none is there.
std::unique_ptr<Tokenizer> load_tokenizer(const std::filesystem::path& model_dir);

enum class TokenizerForm { TokenizerJson, VocabMerges, SentencePiece, None };
// Which form load_tokenizer reads from the folder, and its file names for messages and `inspect`.
TokenizerForm tokenizer_form(const std::filesystem::path& model_dir);
std::string_view tokenizer_form_name(TokenizerForm f);

}  // namespace dlm
