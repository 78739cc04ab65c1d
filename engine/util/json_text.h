#pragma once
// JSON text appended straight to a string, byte for byte as nlohmann::json's compact dump() writes
// the same values (shortest round-trip doubles, ".0" on integral ones, null for NaN and infinity;
// strings with ensure_ascii off and invalid UTF-8 replaced by U+FFFD). A step record holds
// thousands of values: building a JSON tree for it cost the server more than the network did.
#include <cstdint>
#include <string>
#include <string_view>

namespace dlm::json_text {

void append_string(std::string& out, std::string_view s);
void append_double(std::string& out, double d);
// A float as the double whose text is the float's own shortest text (0.1f -> 0.1).
void append_float(std::string& out, float f);
void append_int(std::string& out, int64_t v);
// `"key":` (keys are program constants: written as given).
inline void append_key(std::string& out, std::string_view key) {
    out += '"';
    out += key;
    out += "\":";
}

}  // namespace dlm::json_text
