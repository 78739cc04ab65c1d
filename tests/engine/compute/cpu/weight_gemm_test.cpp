// WeightGemm: the product against a matrix widened from BF16/F16 tile by tile equals the product
// against its fp32 copy bit for bit (the tiles are the same), and both match a double reference.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "compute/cpu/weight_gemm.h"
#include "model/dtype.h"
#include "util/counter_rng.h"

namespace dlm::cpu {
namespace {

using dlm::random_bits;
using dlm::uniform;

struct Stored {
    std::vector<uint16_t> bits;  // the matrix as a checkpoint stores it
    std::vector<float> f32;      // its exact fp32 value
};

Stored random_matrix(int rows, int cols, DType dtype, uint64_t seed) {
    Stored s;
    const std::size_t n = static_cast<std::size_t>(rows) * cols;
    s.bits.resize(n);
    s.f32.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        const uint64_t r = random_bits(seed, 0, i);
        if (dtype == DType::BF16) {
            s.bits[i] = float_to_bf16(static_cast<float>(uniform(seed, 1, i) - 0.5));
        } else {  // F16: random sign and mantissa, exponents 10..14 (magnitudes 2^-5 .. 1)
            s.bits[i] = static_cast<uint16_t>(((r >> 20) & 1) << 15 | (10 + (r >> 21) % 5) << 10 | (r & 0x3ff));
        }
        convert_to_f32(dtype, &s.bits[i], &s.f32[i], 1);
    }
    return s;
}

std::vector<float> random_rows(int m, int k, uint64_t seed) {
    std::vector<float> x(static_cast<std::size_t>(m) * k);
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(uniform(seed, 2, i) * 2.0 - 1.0);
    return x;
}

void check(DType dtype, int m, int rows, int cols, bool accumulate) {
    ASSERT_LT(weight_tile_rows(cols), rows) << "the case must span several tiles";
    const Stored w = random_matrix(rows, cols, dtype, 7);
    const std::vector<float> x = random_rows(m, cols, 11);
    const std::vector<float> y0 = random_rows(m, rows, 13);
    ThreadPool pool(2);
    WeightGemm gemm(pool);

    WeightMatrix widened;
    widened.stored = reinterpret_cast<const std::byte*>(w.bits.data());
    widened.dtype = dtype;
    widened.rows = rows;
    widened.cols = cols;
    WeightMatrix copied = widened;
    copied.stored = nullptr;
    copied.f32 = w.f32.data();

    std::vector<float> a = y0, b = y0;
    gemm.xwt(x.data(), m, widened, a.data(), accumulate);
    gemm.xwt(x.data(), m, copied, b.data(), accumulate);
    ASSERT_EQ(0, std::memcmp(a.data(), b.data(), a.size() * sizeof(float)));

    double worst = 0;
    for (int i = 0; i < m; ++i)
        for (int j = 0; j < rows; ++j) {
            double ref = accumulate ? y0[static_cast<std::size_t>(i) * rows + j] : 0.0;
            for (int t = 0; t < cols; ++t)
                ref += double(x[static_cast<std::size_t>(i) * cols + t]) * w.f32[static_cast<std::size_t>(j) * cols + t];
            worst = std::max(worst, std::abs(ref - a[static_cast<std::size_t>(i) * rows + j]));
        }
    EXPECT_LT(worst, 1e-3);
}

TEST(WeightGemm, WidenedBf16EqualsItsFp32CopyAcrossTiles) { check(DType::BF16, 5, 300, 8192, false); }
TEST(WeightGemm, WidenedF16EqualsItsFp32CopyAcrossTilesWhenAccumulating) { check(DType::F16, 3, 170, 16384, true); }

// sgemm's last bits depend on how the output columns are cut into calls, so a product must not
// depend on the number of threads that share its tiles.
TEST(WeightGemm, ThreadsDoNotChangeTheBits) {
    const int m = 7, rows = 1200, cols = 2048;
    ASSERT_LT(weight_tile_rows(cols), rows / 2);
    const Stored w = random_matrix(rows, cols, DType::BF16, 5);
    const std::vector<float> x = random_rows(m, cols, 3);
    WeightMatrix wm;
    wm.stored = reinterpret_cast<const std::byte*>(w.bits.data());
    wm.dtype = DType::BF16;
    wm.rows = rows;
    wm.cols = cols;
    std::vector<std::vector<float>> results;
    for (int threads : {1, 2, 3}) {
        ThreadPool pool(threads);
        WeightGemm gemm(pool);
        std::vector<float>& y = results.emplace_back(static_cast<std::size_t>(m) * rows);
        gemm.xwt(x.data(), m, wm, y.data(), false);
    }
    EXPECT_EQ(0, std::memcmp(results[0].data(), results[1].data(), results[0].size() * sizeof(float)));
    EXPECT_EQ(0, std::memcmp(results[0].data(), results[2].data(), results[0].size() * sizeof(float)));
}

TEST(WeightGemm, TilesFollowTheShape) {
    EXPECT_EQ(weight_tile_rows(1 << 20), 16);   // very wide matrices still take whole row groups
    EXPECT_EQ(weight_tile_rows(4096), 256);     // LLaDA-8B's projections: 4 MB of fp32 per tile
    EXPECT_EQ(weight_tile_rows(128), 512);      // narrow matrices are cut too, so threads can share them
}

}  // namespace
}  // namespace dlm::cpu
