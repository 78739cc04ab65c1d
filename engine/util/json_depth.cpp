#include "util/json_depth.h"

#include "util/error.h"

namespace dlm {

int json_nesting_depth(std::string_view text, int stop_at) {
    int depth = 0, deepest = 0;
    bool in_string = false, escaped = false;
    for (const char c : text) {
        if (in_string) {
            if (escaped) {
                escaped = false;
            } else if (c == '\\') {
                escaped = true;
            } else if (c == '"') {
                in_string = false;
            }
            continue;
        }
        if (c == '"') {
            in_string = true;
        } else if (c == '[' || c == '{') {
            if (++depth > deepest) {
                deepest = depth;
                if (deepest > stop_at) return deepest;
            }
        } else if ((c == ']' || c == '}') && depth > 0) {
            --depth;
        }
    }
    return deepest;
}

void check_json_depth(std::string_view text, const std::string& source, int max_depth) {
    if (json_nesting_depth(text, max_depth) > max_depth) {
        throw Error(source + ": JSON nested more than " + std::to_string(max_depth) +
                    " levels deep (arrays/objects); refused, no real file nests that deep");
    }
}

}  // namespace dlm
