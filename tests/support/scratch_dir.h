#pragma once
// A self-deleting unique temporary folder for tests.
#include <filesystem>
#include <string>

namespace dlm::test {

class ScratchDir {
public:
    explicit ScratchDir(const std::string& tag = "dlm-test");
    ~ScratchDir();
    ScratchDir(const ScratchDir&) = delete;
    ScratchDir& operator=(const ScratchDir&) = delete;
    const std::filesystem::path& path() const { return path_; }
    std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

private:
    std::filesystem::path path_;
};

// Writes `bytes` to `p` (replacing it); throws std::runtime_error when the file cannot be written,
// which fails the calling test.
void write_file(const std::filesystem::path& p, const std::string& bytes);

}  // namespace dlm::test
