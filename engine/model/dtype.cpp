#include "model/dtype.h"

namespace dlm {

namespace {

uint32_t float_bits(float f) {
    uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    return u;
}

float bits_float(uint32_t u) {
    float f;
    std::memcpy(&f, &u, sizeof f);
    return f;
}

// Branch-light IEEE half -> single (after F. Giesen's half_to_float): rebias the exponent with
// integer adds; subnormals are renormalised by one exact float subtraction. Written without
// table lookups so the conversion loop below auto-vectorises.
inline float half_to_float_inline(uint16_t h) {
    constexpr uint32_t shifted_exp = 0x7c00u << 13;   // f16 exponent mask, moved to f32 position
    uint32_t o = static_cast<uint32_t>(h & 0x7fffu) << 13;
    const uint32_t exp = o & shifted_exp;
    o += (127u - 15u) << 23;                          // rebias
    if (exp == shifted_exp) {
        o += (128u - 16u) << 23;                      // Inf / NaN: exponent all ones, payload kept
    } else if (exp == 0) {
        o += 1u << 23;                                // subnormal: value = (1.m - 1) * 2^-14
        o = float_bits(bits_float(o) - bits_float(113u << 23));
    }
    o |= static_cast<uint32_t>(h & 0x8000u) << 16;
    return bits_float(o);
}

}  // namespace

std::size_t dtype_size(DType t) {
    switch (t) {
        case DType::F32: return 4;
        case DType::F16: return 2;
        case DType::BF16: return 2;
    }
    return 0;
}

std::string_view dtype_name(DType t) {
    switch (t) {
        case DType::F32: return "F32";
        case DType::F16: return "F16";
        case DType::BF16: return "BF16";
    }
    return "?";
}

float f16_to_float(uint16_t h) { return half_to_float_inline(h); }

// Round to nearest, ties to even, done entirely in integers so the result does not depend on the
// FPU rounding mode or flush-to-zero settings.
uint16_t float_to_f16(float f) {
    const uint32_t bits = float_bits(f);
    const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
    const uint32_t x = bits & 0x7fffffffu;

    if (x > 0x7f800000u) {  // NaN: keep it quiet and keep the top payload bits
        return static_cast<uint16_t>(sign | 0x7e00u | ((x >> 13) & 0x3ffu));
    }
    if (x >= 0x477ff000u) {  // >= 65520 (half-way past 65504, the largest f16) or Inf -> Inf
        return static_cast<uint16_t>(sign | 0x7c00u);
    }
    if (x < 0x38800000u) {  // below 2^-14: f16 subnormal or zero
        const uint32_t exp = x >> 23;
        if (exp < 102) return sign;  // below 2^-25: rounds to (signed) zero
        const uint32_t mant = (x & 0x7fffffu) | 0x800000u;
        const uint32_t shift = 126u - exp;  // 14..24
        uint32_t m = mant >> shift;
        const uint32_t rem = mant & ((1u << shift) - 1u);
        const uint32_t half = 1u << (shift - 1u);
        if (rem > half || (rem == half && (m & 1u))) ++m;  // may carry into the smallest normal: fine
        return static_cast<uint16_t>(sign | m);
    }
    // Normal range: rebias the exponent, round the 13 dropped mantissa bits to nearest even.
    uint32_t y = x - ((127u - 15u) << 23);
    y += 0xfffu + ((y >> 13) & 1u);
    return static_cast<uint16_t>(sign | (y >> 13));
}

void convert_to_f32(DType t, const void* src, float* dst, std::size_t count) {
    // The source points into a memory map and may be unaligned (writers other than the reference
    // one do not pad), so every element is read through memcpy; compilers fold it to a plain load.
    if (count == 0) return;  // empty tensors may come with null pointers; memcpy must not see them
    const auto* bytes = static_cast<const unsigned char*>(src);
    switch (t) {
        case DType::F32:
            std::memcpy(dst, src, count * sizeof(float));
            return;
        case DType::BF16:
            for (std::size_t i = 0; i < count; ++i) {
                uint16_t h;
                std::memcpy(&h, bytes + 2 * i, 2);
                dst[i] = bf16_to_float(h);
            }
            return;
        case DType::F16:
            for (std::size_t i = 0; i < count; ++i) {
                uint16_t h;
                std::memcpy(&h, bytes + 2 * i, 2);
                dst[i] = half_to_float_inline(h);
            }
            return;
    }
}

}  // namespace dlm
