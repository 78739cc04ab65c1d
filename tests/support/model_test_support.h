#pragma once
// Small helpers shared by the Model* tests: a self-deleting temp folder, raw file writes, and
// an "expect this dlm::Error message" assertion.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <unistd.h>

#include "support/scratch_dir.h"
#include "util/error.h"

namespace dlm::test {

class TempDir : public dlm::test::ScratchDir {
public:
    TempDir() : ScratchDir("dlm-model-test") {}
};

using dlm::test::write_file;

// A safetensors file from a hand-written header (no padding added) and raw data bytes.
inline std::string raw_safetensors(const std::string& header, const std::string& data) {
    uint64_t n = header.size();
    std::string out;
    for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((n >> (8 * i)) & 0xff));
    return out + header + data;
}

// Runs `fn`, expects a dlm::Error whose message contains every one of `parts`; returns the message.
inline std::string expect_error(const std::function<void()>& fn, std::initializer_list<std::string> parts) {
    try {
        fn();
    } catch (const dlm::Error& e) {
        const std::string msg = e.what();
        for (const auto& part : parts) EXPECT_NE(msg.find(part), std::string::npos) << "missing \"" << part << "\" in: " << msg;
        return msg;
    } catch (const std::exception& e) {
        ADD_FAILURE() << "expected dlm::Error, got another exception: " << e.what();
        return {};
    }
    ADD_FAILURE() << "expected dlm::Error, nothing was thrown";
    return {};
}

}  // namespace dlm::test
