#pragma once
// GPT-2's bytes_to_unicode table: byte-level BPE vocabularies spell every byte as a printable
// code point so that merges never see raw control bytes or spaces. Bytes 0x21-0x7E, 0xA1-0xAC and
// 0xAE-0xFF stand for themselves; the other 68 bytes map to U+0100.. in increasing byte order
// (space -> U+0120 'Ġ', '\n' -> U+010A 'Ċ').
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace dlm::byte_level {

char32_t byte_to_code_point(unsigned char byte);

// Code point back to its byte; nullopt for code points outside the table.
std::optional<unsigned char> code_point_to_byte(char32_t cp);

// Every byte of `bytes` through the table, as UTF-8 text.
std::string encode(std::string_view bytes);

// Inverse of encode(). nullopt when `mapped` holds a character outside the table (or is not
// UTF-8); callers then use the text as it is, like the HF ByteLevel decoder does.
std::optional<std::string> decode(std::string_view mapped);

}  // namespace dlm::byte_level
