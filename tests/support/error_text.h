#pragma once
// The message of the dlm::Error a call throws, or "(no error)": for tests that check wording.
#include <functional>
#include <string>

#include "util/error.h"

namespace dlm::test {

inline std::string error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const Error& e) {
        return e.what();
    }
    return "(no error)";
}

}  // namespace dlm::test
