#pragma once
// Small UTF-8 helpers shared by the tokenizers. Tokenizers must accept any byte string (users paste
// anything, and a model can generate half a character), so everything here is total: invalid
// bytes are reported, never assumed away.
#include <cstddef>
#include <string>
#include <string_view>

namespace dlm::utf8 {

// Length of the well-formed UTF-8 sequence starting at text[pos] (1..4), or 0 when the bytes there
// are not one (stray continuation byte, overlong form, surrogate, > U+10FFFF, truncated).
std::size_t valid_sequence_length(std::string_view text, std::size_t pos);

bool is_valid(std::string_view text);

// Length of the first UTF-8 character at text[pos]; an invalid byte counts as one character.
std::size_t char_length(std::string_view text, std::size_t pos);

// Bytes for display: well-formed sequences are kept as they are, every other byte becomes
// "<0xNN>" (so a token holding half of a character still shows something honest).
std::string display_bytes(std::string_view bytes);

// Appends code point `cp` (must be <= U+10FFFF) as UTF-8.
void append_code_point(std::string& out, char32_t cp);

}  // namespace dlm::utf8
