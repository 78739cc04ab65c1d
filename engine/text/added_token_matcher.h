#pragma once
// Finds added/special tokens written literally in text, leftmost-longest (as HF tokenizers does),
// before any normalization or BPE touches the text around them.
#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace dlm {

struct LiteralToken {
    std::string content;
    int payload = -1;          // caller's value for this token (an id or an index)
    bool lstrip = false;       // also consume whitespace right before the token
    bool rstrip = false;       // also consume whitespace right after the token
    bool single_word = false;  // only match when not glued to a word character on either side
};

struct TextSegment {
    std::string_view text;  // the plain text, or the matched token text (with stripped whitespace)
    int payload = -1;       // -1 for plain text, else the matched token's payload
};

class AddedTokenMatcher {
public:
    AddedTokenMatcher() = default;
    explicit AddedTokenMatcher(std::vector<LiteralToken> tokens);

    bool empty() const { return tokens_.empty(); }

    // Cuts `text` into plain segments and token segments, in order; concatenating all segment
    // texts gives `text` back. Empty plain segments are left out. The views point into `text`.
    std::vector<TextSegment> split(std::string_view text) const;

private:
    bool accepts(std::string_view text, std::size_t begin, std::size_t end, const LiteralToken& t) const;

    std::vector<LiteralToken> tokens_;
    // first byte -> indices into tokens_, longest content first
    std::unordered_map<unsigned char, std::vector<std::size_t>> by_first_byte_;
};

}  // namespace dlm
