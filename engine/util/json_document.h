#pragma once
// One way to read a JSON text from a file a user gave: nesting checked first (json_depth.h), then
// parsed, and any error of the JSON library (syntax, a number past a double, ...) turned into a
// dlm::Error naming `source`. Every reader calls this rather than json::parse, so none can let a
// library exception escape.
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace dlm {

nlohmann::json parse_json_document(std::string_view text, const std::string& source);

}  // namespace dlm
