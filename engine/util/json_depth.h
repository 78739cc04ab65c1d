#pragma once
// The JSON library recurses once per nesting level when it copies, compares or prints a value,
// so a document nested 100k deep overflows the stack. Every JSON text is measured first.
#include <string>
#include <string_view>

#include "util/input_limits.h"

namespace dlm {

// The deepest nesting of arrays and objects in `text`, brackets inside strings not counted.
// Stops counting once past `stop_at` (the answer is then stop_at + 1).
int json_nesting_depth(std::string_view text, int stop_at = limits::kMaxJsonDepth);

// Throws dlm::Error naming `source` when `text` nests deeper than max_depth.
void check_json_depth(std::string_view text, const std::string& source, int max_depth = limits::kMaxJsonDepth);

}  // namespace dlm
