#include "support/safetensors_writer.h"

#include <fstream>
#include <stdexcept>

#include "model/safetensors_writer.h"

namespace dlm::test {

namespace {
void append_value(std::string& out, DType t, float v) {
    if (t == DType::F32) {
        out.append(reinterpret_cast<const char*>(&v), 4);
    } else {
        uint16_t h = (t == DType::BF16) ? float_to_bf16(v) : float_to_f16(v);
        out.append(reinterpret_cast<const char*>(&h), 2);
    }
}
}  // namespace

std::string safetensors_bytes(const std::map<std::string, TensorData>& tensors,
                              const std::map<std::string, std::string>& metadata) {
    // The engine's writer fixes the header (model/safetensors_writer.h); the data follows in the
    // same (name) order.
    std::vector<SafetensorsEntry> entries;
    std::string data;
    for (const auto& [name, t] : tensors) {
        int64_t n = 1;
        for (int64_t d : t.shape) n *= d;
        if (static_cast<int64_t>(t.values.size()) != n) throw std::runtime_error("tensor " + name + ": values != shape");
        entries.push_back({name, t.dtype, t.shape});
        for (float v : t.values) append_value(data, t.dtype, v);
    }
    return safetensors_preamble(entries, metadata) + data;
}

void write_safetensors(const std::filesystem::path& file, const std::map<std::string, TensorData>& tensors,
                       const std::map<std::string, std::string>& metadata) {
    std::ofstream f(file, std::ios::binary | std::ios::trunc);
    if (!f) throw std::runtime_error("cannot write " + file.string());
    std::string bytes = safetensors_bytes(tensors, metadata);
    f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::vector<float> rounded(const TensorData& t) {
    std::vector<float> out(t.values.size());
    for (std::size_t i = 0; i < out.size(); ++i) {
        float v = t.values[i];
        if (t.dtype == DType::BF16) v = bf16_to_float(float_to_bf16(v));
        else if (t.dtype == DType::F16) v = f16_to_float(float_to_f16(v));
        out[i] = v;
    }
    return out;
}

}  // namespace dlm::test
