#pragma once
// One error type for everything the engine rejects: bad files, bad settings, exhausted memory.
// The message is meant to be shown to a user as is (CLI stderr line, UI error banner).
#include <stdexcept>
#include <string>

namespace dlm {

class Error : public std::runtime_error {
public:
    explicit Error(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace dlm
