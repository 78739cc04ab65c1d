#pragma once
// The `pre_tokenizer` of a tokenizer.json: Split steps (regex used verbatim) and ByteLevel,
// applied in order to cut normalized text into the words BPE works on.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "text/hf_tokenizer_spec.h"

namespace dlm {

class UnicodeRegex;

class HfPreTokenizer {
public:
    // Compiles every regex once. Throws dlm::Error naming spec.source on a bad pattern.
    explicit HfPreTokenizer(const HfTokenizerSpec& spec);
    ~HfPreTokenizer();
    HfPreTokenizer(const HfPreTokenizer&) = delete;
    HfPreTokenizer& operator=(const HfPreTokenizer&) = delete;

    // Words as raw bytes (the byte-to-unicode mapping is left to the BPE model). Concatenating
    // them gives `text` back, plus any prefix spaces ByteLevel adds, minus what "Removed" drops.
    std::vector<std::string> split(std::string_view text) const;

    // GPT-2's default ByteLevel regex (used when ByteLevel has use_regex = true).
    static const char* gpt2_pattern();

private:
    struct Step {
        HfPreTokenizerStep spec;
        std::unique_ptr<UnicodeRegex> regex;  // Split with a regex, or ByteLevel with use_regex
    };
    std::vector<Step> steps_;
};

}  // namespace dlm
