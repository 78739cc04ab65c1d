#pragma once
// Shared by the fuzz targets: a bad input must end as a dlm::Error (the engine's "refused with a
// reason"); any other exception, a crash, a sanitizer report, a hang or runaway memory is a
// finding, so nothing else is caught.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "util/error.h"

namespace dlm::fuzz {

inline std::string_view as_text(const uint8_t* data, std::size_t size) {
    return {reinterpret_cast<const char*>(data), size};
}

inline void expect_refusal_or_success(const std::function<void()>& f) {
    try {
        f();
    } catch (const Error&) {
    }
}

}  // namespace dlm::fuzz
