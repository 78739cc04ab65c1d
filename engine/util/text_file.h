#pragma once
// Reading a whole file the engine parses: regular files only (a FIFO or a device would block or
// never end) and at most max_bytes (util/input_limits.h). Errors name the file, what it is and the
// limit; they never echo the file's bytes.
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace dlm {

// `what` says what the file is for ("model config", "tokenizer.json"), for the message.
std::string read_text_file(const std::filesystem::path& path, uint64_t max_bytes, std::string_view what);

// Throws dlm::Error unless `path` is a regular file (after following links): a FIFO, socket or
// device is refused by name, so nothing blocks on it.
void require_regular_file(const std::filesystem::path& path, std::string_view what);

}  // namespace dlm
