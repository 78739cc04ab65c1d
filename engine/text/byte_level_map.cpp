#include "text/byte_level_map.h"

#include <array>

#include "text/utf8_util.h"

namespace dlm::byte_level {
namespace {

struct Tables {
    std::array<char32_t, 256> to_cp{};
    std::array<int, 0x144> to_byte{};  // every mapped code point is < U+0144
    std::array<std::string, 256> utf8{};

    Tables() {
        to_byte.fill(-1);
        int extra = 0;
        for (int b = 0; b < 256; ++b) {
            const bool printable = (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE);
            const char32_t cp = printable ? static_cast<char32_t>(b) : static_cast<char32_t>(0x100 + extra++);
            to_cp[b] = cp;
            to_byte[cp] = b;
            utf8::append_code_point(utf8[b], cp);
        }
    }
};

const Tables& tables() {
    static const Tables t;
    return t;
}

}  // namespace

char32_t byte_to_code_point(unsigned char byte) { return tables().to_cp[byte]; }

std::optional<unsigned char> code_point_to_byte(char32_t cp) {
    const Tables& t = tables();
    if (cp >= t.to_byte.size() || t.to_byte[cp] < 0) return std::nullopt;
    return static_cast<unsigned char>(t.to_byte[cp]);
}

std::string encode(std::string_view bytes) {
    const Tables& t = tables();
    std::string out;
    out.reserve(bytes.size() * 2);
    for (char c : bytes) out += t.utf8[static_cast<unsigned char>(c)];
    return out;
}

std::optional<std::string> decode(std::string_view mapped) {
    std::string out;
    out.reserve(mapped.size());
    for (std::size_t i = 0; i < mapped.size();) {
        const std::size_t len = utf8::valid_sequence_length(mapped, i);
        if (len == 0 || len > 2) return std::nullopt;  // the table only holds U+0021..U+0143
        char32_t cp = static_cast<unsigned char>(mapped[i]);
        if (len == 2) cp = ((cp & 0x1F) << 6) | (static_cast<unsigned char>(mapped[i + 1]) & 0x3F);
        const auto b = code_point_to_byte(cp);
        if (!b) return std::nullopt;
        out += static_cast<char>(*b);
        i += len;
    }
    return out;
}

}  // namespace dlm::byte_level
