#pragma once
// One .safetensors file, memory-mapped (a 16 GB checkpoint is never read into RAM) and
// validated in full before any tensor is handed out.
#include <filesystem>
#include <map>
#include <memory>
#include <string>

#include "model/tensor_view.h"

namespace dlm {

class SafetensorsFile {
public:
    // Throws dlm::Error naming the file (and the tensor, where one is at fault) when:
    // the file is shorter than 8 bytes; the header length runs past the end; the header is not
    // well-formed JSON or not an object; a dtype is not F32/F16/BF16; a shape is not a list of
    // non-negative integers; data_offsets are not [begin, end] inside the data section;
    // shape x dtype size != end - begin; two tensors overlap.
    explicit SafetensorsFile(const std::filesystem::path& path);
    ~SafetensorsFile();
    SafetensorsFile(const SafetensorsFile&) = delete;
    SafetensorsFile& operator=(const SafetensorsFile&) = delete;

    const std::filesystem::path& path() const { return path_; }
    const std::map<std::string, TensorView>& tensors() const { return tensors_; }
    const std::map<std::string, std::string>& metadata() const { return metadata_; }

private:
    std::filesystem::path path_;
    void* mapping_ = nullptr;
    std::size_t mapping_size_ = 0;
    std::map<std::string, TensorView> tensors_;
    std::map<std::string, std::string> metadata_;
};

}  // namespace dlm
