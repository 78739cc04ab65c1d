#include "util/json_text.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <nlohmann/json.hpp>

namespace dlm::json_text {

namespace {

// Strict UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing past U+10FFFF), the same
// acceptance as nlohmann's decoder; anything else takes the library's own replacing path.
bool valid_utf8(std::string_view s) {
    const auto* p = reinterpret_cast<const unsigned char*>(s.data());
    const auto* end = p + s.size();
    while (p < end) {
        const unsigned c = *p;
        if (c < 0x80) { ++p; continue; }
        int n;
        unsigned lo = 0x80, hi = 0xBF;
        if (c >= 0xC2 && c <= 0xDF) n = 1;
        else if (c == 0xE0) { n = 2; lo = 0xA0; }
        else if (c == 0xED) { n = 2; hi = 0x9F; }
        else if (c >= 0xE1 && c <= 0xEF) n = 2;
        else if (c == 0xF0) { n = 3; lo = 0x90; }
        else if (c >= 0xF1 && c <= 0xF3) n = 3;
        else if (c == 0xF4) { n = 3; hi = 0x8F; }
        else return false;
        if (end - p <= n) return false;
        if (p[1] < lo || p[1] > hi) return false;
        for (int i = 2; i <= n; ++i)
            if (p[i] < 0x80 || p[i] > 0xBF) return false;
        p += n + 1;
    }
    return true;
}

}  // namespace

void append_string(std::string& out, std::string_view s) {
    if (!valid_utf8(s)) {
        out += nlohmann::json(std::string(s)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
        return;
    }
    out += '"';
    for (const char ch : s) {
        const auto c = static_cast<unsigned char>(ch);
        switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\b': out += "\\b"; break;
            case '\f': out += "\\f"; break;
            case '\n': out += "\\n"; break;
            case '\r': out += "\\r"; break;
            case '\t': out += "\\t"; break;
            default:
                if (c < 0x20) {
                    static constexpr char hex[] = "0123456789abcdef";
                    out += "\\u00";
                    out += hex[c >> 4];
                    out += hex[c & 15];
                } else {
                    out += ch;
                }
        }
    }
    out += '"';
}

void append_double(std::string& out, double d) {
    if (!std::isfinite(d)) {
        out += "null";
        return;
    }
    char buf[64];
    const char* end = nlohmann::detail::to_chars(buf, buf + sizeof buf, d);
    out.append(buf, static_cast<size_t>(end - buf));
}

void append_float(std::string& out, float f) {
    if (!std::isfinite(f)) {
        out += "null";
        return;
    }
    char buf[32];
    char* end = std::to_chars(buf, buf + sizeof buf - 1, f).ptr;
    *end = '\0';
    append_double(out, std::strtod(buf, nullptr));
}

void append_int(std::string& out, int64_t v) {
    char buf[24];
    out.append(buf, static_cast<size_t>(std::to_chars(buf, buf + sizeof buf, v).ptr - buf));
}

}  // namespace dlm::json_text
