#include "util/json_document.h"

#include "util/error.h"
#include "util/json_depth.h"

namespace dlm {

nlohmann::json parse_json_document(std::string_view text, const std::string& source) {
    check_json_depth(text, source);
    try {
        return nlohmann::json::parse(text.begin(), text.end());
    } catch (const nlohmann::json::exception& e) {
        throw Error(source + ": not valid JSON (" + e.what() + ")");
    }
}

}  // namespace dlm
