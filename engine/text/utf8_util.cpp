#include "text/utf8_util.h"

#include <cstdio>

namespace dlm::utf8 {

std::size_t valid_sequence_length(std::string_view text, std::size_t pos) {
    const std::size_t n = text.size();
    if (pos >= n) return 0;
    const auto b = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
    const unsigned char c0 = b(pos);
    if (c0 < 0x80) return 1;
    std::size_t len = 0;
    unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte (Unicode Table 3-7)
    if (c0 >= 0xC2 && c0 <= 0xDF) {
        len = 2;
    } else if (c0 >= 0xE0 && c0 <= 0xEF) {
        len = 3;
        if (c0 == 0xE0) lo = 0xA0;  // no overlong 3-byte forms
        if (c0 == 0xED) hi = 0x9F;  // no UTF-16 surrogates
    } else if (c0 >= 0xF0 && c0 <= 0xF4) {
        len = 4;
        if (c0 == 0xF0) lo = 0x90;  // no overlong 4-byte forms
        if (c0 == 0xF4) hi = 0x8F;  // nothing above U+10FFFF
    } else {
        return 0;
    }
    if (pos + len > n) return 0;
    if (b(pos + 1) < lo || b(pos + 1) > hi) return 0;
    for (std::size_t i = 2; i < len; ++i)
        if (b(pos + i) < 0x80 || b(pos + i) > 0xBF) return 0;
    return len;
}

bool is_valid(std::string_view text) {
    for (std::size_t i = 0; i < text.size();) {
        const std::size_t len = valid_sequence_length(text, i);
        if (len == 0) return false;
        i += len;
    }
    return true;
}

std::size_t char_length(std::string_view text, std::size_t pos) {
    const std::size_t len = valid_sequence_length(text, pos);
    return len == 0 ? 1 : len;
}

std::string display_bytes(std::string_view bytes) {
    std::string out;
    out.reserve(bytes.size());
    for (std::size_t i = 0; i < bytes.size();) {
        const std::size_t len = valid_sequence_length(bytes, i);
        if (len > 0) {
            out.append(bytes.substr(i, len));
            i += len;
        } else {
            char hex[8];
            std::snprintf(hex, sizeof hex, "<0x%02X>", static_cast<unsigned char>(bytes[i]));
            out += hex;
            ++i;
        }
    }
    return out;
}

void append_code_point(std::string& out, char32_t cp) {
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
}

}  // namespace dlm::utf8
