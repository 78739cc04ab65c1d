// The device Philox path (kernels/philox.cuh) must draw exactly what util/counter_rng draws, so a
// token sampled on the GPU is the token the CPU reference samples. The host half of this file
// needs no device: it runs the inlined device arithmetic through philox_uniform_host.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "gpu_test_support.h"
#include "philox.cuh"
#include "util/counter_rng.h"

namespace dlm::gpu_test {
namespace {

constexpr uint64_t kAllOnes = ~uint64_t{0};
constexpr uint64_t kSeeds[] = {0, 42, 0x0123456789ABCDEFull, kAllOnes};
// Steps, positions and draws at and past 2^32 exercise the high halves that fold into the key.
constexpr uint64_t kSteps[] = {0, 1, 7, (uint64_t{1} << 32) + 5, kAllOnes};
constexpr uint64_t kPositions[] = {0, 3, 4095, (uint64_t{1} << 32) + 17, kAllOnes};
constexpr uint64_t kDraws[] = {0, 1, 2, 5, 126463, uint64_t{1} << 33, (uint64_t{1} << 33) + 1, kAllOnes - 1, kAllOnes};

TEST(PhiloxHost, KeyAndDeviceArithmeticMatchCounterRng) {
    // No DLM_REQUIRE_GPU(): philox_key and philox_uniform_host are host code.
    for (uint64_t seed : kSeeds)
        for (uint64_t stream = 0; stream < 4; ++stream) {
            const CounterRng rng(seed, stream);
            const uint64_t key = cuda::philox_key(seed, stream);
            for (uint64_t step : kSteps)
                for (uint64_t position : kPositions)
                    for (uint64_t draw : kDraws)
                        ASSERT_EQ(cuda::philox_uniform_host(key, step, position, draw), rng.uniform(step, position, draw))
                            << "seed " << seed << " stream " << stream << " step " << step << " position " << position
                            << " draw " << draw;
        }
    // The value tests/engine/util/counter_rng_test.cpp pins for CounterRng(42, sampling).uniform(7, 3, 5).
    EXPECT_EQ(cuda::philox_uniform_host(cuda::philox_key(42, rng_stream::kSampling), 7, 3, 5), 0x1.995059fdbf227p-1);
    // Different streams give different keys.
    EXPECT_NE(cuda::philox_key(42, rng_stream::kSampling), cuda::philox_key(42, rng_stream::kRemasking));
}

void check_device_fill(uint64_t seed, uint64_t stream, uint64_t step, uint64_t position, uint64_t first_draw,
                       int count) {
    SCOPED_TRACE(testing::Message() << "seed " << seed << " stream " << stream << " step " << step << " position "
                                    << position << " first draw " << first_draw << " count " << count);
    const CounterRng rng(seed, stream);
    std::vector<double> want(static_cast<std::size_t>(count));
    rng.fill_uniform(step, position, first_draw, want);

    cuda::DeviceBuffer<double> d_out(static_cast<std::size_t>(std::max(count, 1)));
    cuda::launch_philox_fill(cuda::philox_key(seed, stream), step, position, first_draw, count, d_out.get(), nullptr);
    const auto got = to_host(d_out, static_cast<std::size_t>(count));
    for (int i = 0; i < count; ++i) {
        ASSERT_EQ(got[i], want[i]) << "draw " << first_draw + static_cast<uint64_t>(i);
        ASSERT_EQ(got[i], rng.uniform(step, position, first_draw + static_cast<uint64_t>(i)));
    }
}

TEST(GpuPhilox, DeviceUniformsEqualCounterRng) {
    DLM_REQUIRE_GPU();
    check_device_fill(42, rng_stream::kSampling, 7, 3, 0, 126464);  // a vocabulary's worth of draws
    check_device_fill(42, rng_stream::kRemasking, 0, 4095, 1, 1001);  // odd first draw: starts on a half block
    check_device_fill(0, rng_stream::kTransfer, (uint64_t{1} << 32) + 5, (uint64_t{1} << 32) + 17, 3, 64);
    check_device_fill(kAllOnes, rng_stream::kStrategy, kAllOnes, kAllOnes, (uint64_t{1} << 33) - 7, 300);
    check_device_fill(0x0123456789ABCDEFull, rng_stream::kSampling, 1, 0, 0, 1);
}

TEST(GpuPhilox, ZeroCountLaunchesNothing) {
    DLM_REQUIRE_GPU();
    cuda::launch_philox_fill(1, 2, 3, 4, 0, nullptr, nullptr);
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

}  // namespace
}  // namespace dlm::gpu_test
