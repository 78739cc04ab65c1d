#pragma once
// A step record read without building a JSON tree: a 1024-position record is ~330 KB and ~10,000
// values, and the tree cost the app's reader ~8 ms per step. The fast reader takes the layout the
// writer produces (trace_io.cpp: step_trace_to_json) and nothing else: any other key order, an
// unknown or repeated key, a type it does not expect or malformed JSON gives nullopt, and
// step_trace_from_json then reads the line with the tree reader, which accepts or names the error
// exactly as before. So it changes the speed of reading, never what is read or refused.
#include <optional>
#include <string_view>

#include "trace/step_trace.h"

namespace dlm {

std::optional<StepTrace> read_step_record_fast(std::string_view line);

}  // namespace dlm
