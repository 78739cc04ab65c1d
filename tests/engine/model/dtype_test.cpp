#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "model/dtype.h"

namespace dlm {
namespace {

uint32_t bits_of(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
}

float float_of(uint32_t u) {
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}

TEST(ModelDType, SizesAndNames) {
    EXPECT_EQ(dtype_size(DType::F32), 4u);
    EXPECT_EQ(dtype_size(DType::F16), 2u);
    EXPECT_EQ(dtype_size(DType::BF16), 2u);
    EXPECT_EQ(dtype_name(DType::F32), "F32");
    EXPECT_EQ(dtype_name(DType::F16), "F16");
    EXPECT_EQ(dtype_name(DType::BF16), "BF16");
}

TEST(ModelDType, F16KnownBitPatterns) {
    struct Case {
        uint16_t h;
        float f;
    };
    const Case cases[] = {
        {0x0000, 0.0f},
        {0x3c00, 1.0f},
        {0xc000, -2.0f},
        {0x3555, 0.333251953125f},
        {0x7bff, 65504.0f},                // largest finite
        {0x0400, 6.103515625e-05f},        // smallest normal 2^-14
        {0x0001, 5.9604644775390625e-08f}, // smallest subnormal 2^-24
        {0x03ff, 6.097555160522461e-05f},  // largest subnormal
        {0x8001, -5.9604644775390625e-08f},
        {0x3bff, 0.99951171875f},
    };
    for (const Case& c : cases) {
        EXPECT_EQ(f16_to_float(c.h), c.f) << std::hex << c.h;
        EXPECT_EQ(float_to_f16(c.f), c.h) << c.f;
    }
    EXPECT_EQ(bits_of(f16_to_float(0x8000)), 0x80000000u);  // -0 keeps its sign
    EXPECT_EQ(float_to_f16(-0.0f), 0x8000);
    EXPECT_TRUE(std::isinf(f16_to_float(0x7c00)) && f16_to_float(0x7c00) > 0);
    EXPECT_TRUE(std::isinf(f16_to_float(0xfc00)) && f16_to_float(0xfc00) < 0);
    EXPECT_TRUE(std::isnan(f16_to_float(0x7e00)));
    EXPECT_TRUE(std::isnan(f16_to_float(0x7c01)));  // signalling NaN stays NaN
}

TEST(ModelDType, F16RoundsToNearestEven) {
    // 1 + 2^-11 is exactly half-way between 1 and 1 + 2^-10: ties to the even mantissa (1.0).
    EXPECT_EQ(float_to_f16(1.0f + std::ldexp(1.0f, -11)), 0x3c00);
    // 1 + 3*2^-11 is half-way between 1+2^-10 (odd) and 1+2^-9 (even): rounds up.
    EXPECT_EQ(float_to_f16(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02);
    // Just above half-way rounds up.
    EXPECT_EQ(float_to_f16(std::nextafter(1.0f + std::ldexp(1.0f, -11), 2.0f)), 0x3c01);
    // Overflow: 65519 rounds to 65504, 65520 (the tie) rounds to Inf, as do larger values.
    EXPECT_EQ(float_to_f16(65519.0f), 0x7bff);
    EXPECT_EQ(float_to_f16(65520.0f), 0x7c00);
    EXPECT_EQ(float_to_f16(-1e10f), 0xfc00);
    EXPECT_EQ(float_to_f16(std::numeric_limits<float>::infinity()), 0x7c00);
    // NaN stays NaN (quiet).
    const uint16_t nan = float_to_f16(std::numeric_limits<float>::quiet_NaN());
    EXPECT_EQ(nan & 0x7c00, 0x7c00);
    EXPECT_NE(nan & 0x03ff, 0);
    // Subnormals: 2^-25 is the tie between 0 and 2^-24 -> 0 (even); a bit more -> 2^-24.
    EXPECT_EQ(float_to_f16(std::ldexp(1.0f, -25)), 0x0000);
    EXPECT_EQ(float_to_f16(std::nextafter(std::ldexp(1.0f, -25), 1.0f)), 0x0001);
    EXPECT_EQ(float_to_f16(1.5f * std::ldexp(1.0f, -24)), 0x0002);  // tie 1.5 -> 2 (even)
    EXPECT_EQ(float_to_f16(2.5f * std::ldexp(1.0f, -24)), 0x0002);  // tie 2.5 -> 2 (even)
    EXPECT_EQ(float_to_f16(std::ldexp(1.0f, -30)), 0x0000);
    EXPECT_EQ(float_to_f16(-std::ldexp(1.0f, -30)), 0x8000);
    // Rounding the largest subnormal up carries into the smallest normal.
    EXPECT_EQ(float_to_f16(std::nextafter(std::ldexp(1.0f, -14), 0.0f)), 0x0400);
}

TEST(ModelDType, F16EveryValueRoundTrips) {
    for (uint32_t h = 0; h < 0x10000; ++h) {
        const float f = f16_to_float(static_cast<uint16_t>(h));
        if (std::isnan(f)) {
            EXPECT_EQ(h & 0x7c00u, 0x7c00u);
            EXPECT_NE(h & 0x03ffu, 0u);
            continue;
        }
        ASSERT_EQ(float_to_f16(f), h) << std::hex << h;
    }
}

TEST(ModelDType, F16MatchesDoubleRoundingOnDenseSweep) {
    // Compare against a reference built from the f16 grid: the nearest f16 value, ties to even.
    for (uint32_t h = 0; h < 0x7bff; h += 7) {
        const float lo = f16_to_float(static_cast<uint16_t>(h));
        const float hi = f16_to_float(static_cast<uint16_t>(h + 1));
        const float mid = (lo + hi) / 2;  // exact in float
        const uint16_t even = (h % 2 == 0) ? static_cast<uint16_t>(h) : static_cast<uint16_t>(h + 1);
        EXPECT_EQ(float_to_f16(mid), even) << std::hex << h;
        EXPECT_EQ(float_to_f16(std::nextafter(mid, 0.0f)), h) << std::hex << h;
        EXPECT_EQ(float_to_f16(std::nextafter(mid, 1e9f)), h + 1) << std::hex << h;
    }
}

TEST(ModelDType, BF16Conversions) {
    EXPECT_EQ(bf16_to_float(0x3f80), 1.0f);
    EXPECT_EQ(bf16_to_float(0xc040), -3.0f);
    EXPECT_EQ(float_to_bf16(1.0f), 0x3f80);
    EXPECT_EQ(float_to_bf16(float_of(0x3f808000)), 0x3f80);  // tie -> even
    EXPECT_EQ(float_to_bf16(float_of(0x3f818000)), 0x3f82);  // tie -> even (up)
    EXPECT_EQ(float_to_bf16(float_of(0x3f808001)), 0x3f81);
    EXPECT_TRUE(std::isnan(bf16_to_float(float_to_bf16(std::numeric_limits<float>::quiet_NaN()))));
    EXPECT_TRUE(std::isinf(bf16_to_float(float_to_bf16(std::numeric_limits<float>::infinity()))));
}

TEST(ModelDType, ConvertToF32AllDTypesIncludingUnalignedSource) {
    const std::vector<float> values = {0.0f, -1.5f, 3.140625f, 1e-6f, 65504.0f, -0.25f, 7.0f};
    for (DType t : {DType::F32, DType::F16, DType::BF16}) {
        // One byte of offset makes every element unaligned.
        std::vector<unsigned char> buffer(1 + values.size() * dtype_size(t));
        for (std::size_t i = 0; i < values.size(); ++i) {
            unsigned char* at = buffer.data() + 1 + i * dtype_size(t);
            if (t == DType::F32) {
                std::memcpy(at, &values[i], 4);
            } else {
                const uint16_t h = t == DType::F16 ? float_to_f16(values[i]) : float_to_bf16(values[i]);
                std::memcpy(at, &h, 2);
            }
        }
        std::vector<float> out(values.size());
        convert_to_f32(t, buffer.data() + 1, out.data(), values.size());
        for (std::size_t i = 0; i < values.size(); ++i) {
            float expect = values[i];
            if (t == DType::F16) expect = f16_to_float(float_to_f16(expect));
            if (t == DType::BF16) expect = bf16_to_float(float_to_bf16(expect));
            EXPECT_EQ(out[i], expect) << dtype_name(t) << " element " << i;
        }
    }
}

}  // namespace
}  // namespace dlm
