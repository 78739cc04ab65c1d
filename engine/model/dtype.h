#pragma once
// Storage dtypes found in checkpoints and the scalar conversions the CPU backend needs.
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace dlm {

enum class DType { F32, F16, BF16 };

std::size_t dtype_size(DType t);
std::string_view dtype_name(DType t);  // "F32", "F16", "BF16" as safetensors spells them

inline float bf16_to_float(uint16_t h) {
    uint32_t bits = static_cast<uint32_t>(h) << 16;
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
}

// Round to nearest even, as PyTorch does when casting to bfloat16.
inline uint16_t float_to_bf16(float f) {
    uint32_t bits;
    std::memcpy(&bits, &f, sizeof bits);
    if ((bits & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((bits >> 16) | 0x40u);  // NaN
    bits += 0x7fffu + ((bits >> 16) & 1u);
    return static_cast<uint16_t>(bits >> 16);
}

float f16_to_float(uint16_t h);
uint16_t float_to_f16(float f);

// Converts `count` elements of `src` (stored as `t`) to fp32.
void convert_to_f32(DType t, const void* src, float* dst, std::size_t count);

}  // namespace dlm
