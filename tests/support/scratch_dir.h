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

}  // namespace dlm::test
