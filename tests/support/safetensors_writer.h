#pragma once
// Writes real safetensors files for tests (tiny random checkpoints, malformed variants).
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "model/dtype.h"

namespace dlm::test {

struct TensorData {
    std::vector<int64_t> shape;
    std::vector<float> values;  // stored as `dtype` in the file
    DType dtype = DType::F32;
};

// name -> tensor; written in name order, contiguous, header padded with spaces to 8 bytes.
void write_safetensors(const std::filesystem::path& file, const std::map<std::string, TensorData>& tensors,
                       const std::map<std::string, std::string>& metadata = {});

// The bytes write_safetensors would produce (for tests that corrupt them).
std::string safetensors_bytes(const std::map<std::string, TensorData>& tensors,
                              const std::map<std::string, std::string>& metadata = {});

// Values exactly as they will be read back (rounded through the storage dtype).
std::vector<float> rounded(const TensorData& t);

}  // namespace dlm::test
