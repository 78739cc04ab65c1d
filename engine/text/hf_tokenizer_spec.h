#pragma once
// The parts of a Hugging Face tokenizer.json that byte-level BPE needs, as plain data. Parsing
// and validating the JSON happens in one place (hf_tokenizer_json.cpp); the tokenizer, the
// normalizer and the pre-tokenizer are built from this struct and never see JSON.
#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace dlm {

struct HfAddedToken {
    int32_t id = -1;
    std::string content;
    bool special = false;
    bool single_word = false;  // only matched when not inside a word
    bool lstrip = false;       // swallows whitespace on its left
    bool rstrip = false;       // swallows whitespace on its right
    bool normalized = false;   // matched in the normalized text instead of the raw input
};

enum class UnicodeForm { NFC, NFD, NFKC, NFKD };

enum class SplitBehavior { Removed, Isolated, MergedWithPrevious, MergedWithNext, Contiguous };

struct HfPreTokenizerStep {
    enum class Kind { Split, ByteLevel };
    Kind kind = Kind::Split;
    // Split
    std::string pattern;
    bool pattern_is_regex = true;  // {"Regex": ...} vs {"String": ...}
    SplitBehavior behavior = SplitBehavior::Isolated;
    bool invert = false;
    // ByteLevel
    bool add_prefix_space = false;
    bool use_regex = true;
};

struct HfTokenizerSpec {
    std::string source;  // file name for messages
    std::vector<std::pair<std::string, int32_t>> vocab;
    std::vector<std::pair<std::string, std::string>> merges;  // in rank order
    bool ignore_merges = false;
    std::string unk_token;  // empty: none
    std::vector<HfAddedToken> added_tokens;
    std::vector<UnicodeForm> normalizer;  // applied in order; empty: no normalizer
    std::vector<HfPreTokenizerStep> pre_tokenizer;
};

// Parses tokenizer.json text; `source` names the file in errors. Throws dlm::Error for anything
// that is not a byte-level BPE tokenizer this engine can reproduce exactly.
HfTokenizerSpec parse_hf_tokenizer_json(std::string_view json_text, const std::string& source);

// The "slow" form of the same tokenizers: `dir`/vocab.json + merges.txt, with added tokens from
// tokenizer_config.json's added_tokens_decoder (else added_tokens.json) and the pre-tokenizer of its
// tokenizer_class (Qwen2Tokenizer / DreamTokenizer: Qwen2's regex and NFC; GPT2Tokenizer, also
// when no class is named: GPT-2's). Gives exactly the spec the equivalent tokenizer.json gives.
HfTokenizerSpec read_hf_slow_tokenizer_files(const std::filesystem::path& dir);

}  // namespace dlm
