#pragma once
// Shared by the GPU tests: skip with a clear message where no device is present (CI, developer
// machines without a GPU), device <-> host copies, bf16 conversions and the relative-error check
// every kernel test compares against its CPU reference with.
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "cuda_check.h"
#include "device_buffer.h"
#include "device_probe.h"

namespace dlm::gpu_test {

// Call first in every GPU test.
#define DLM_REQUIRE_GPU()                                                         \
    do {                                                                          \
        static const auto dlm_probe_ = ::dlm::cuda::probe_device();               \
        if (!dlm_probe_.available) GTEST_SKIP() << "GPU test skipped: " << dlm_probe_.message; \
    } while (0)

template <typename T>
cuda::DeviceBuffer<T> to_device(const std::vector<T>& host) {
    cuda::DeviceBuffer<T> d(std::max<std::size_t>(host.size(), 1), "test upload");
    if (!host.empty()) cuda::check(cudaMemcpy(d.get(), host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice), "test upload");
    return d;
}

template <typename T>
std::vector<T> to_host(const cuda::DeviceBuffer<T>& d, std::size_t count) {
    std::vector<T> host(count);
    cuda::check(cudaDeviceSynchronize(), "test sync");
    if (count) cuda::check(cudaMemcpy(host.data(), d.get(), count * sizeof(T), cudaMemcpyDeviceToHost), "test download");
    return host;
}

inline std::vector<__nv_bfloat16> to_bf16(const std::vector<float>& v) {
    std::vector<__nv_bfloat16> out(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) out[i] = __float2bfloat16(v[i]);
    return out;
}
inline std::vector<float> to_float(const std::vector<__nv_bfloat16>& v) {
    std::vector<float> out(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) out[i] = __bfloat162float(v[i]);
    return out;
}
// Rounds through bf16 (what a reference must do to its inputs to see what the kernel sees).
inline std::vector<float> round_bf16(const std::vector<float>& v) { return to_float(to_bf16(v)); }

// max_i |a_i - b_i| / max(|b_i|, floor): b is the reference. `floor` keeps near-zero reference
// entries from dominating (set it to the scale of the data, e.g. its RMS).
inline double max_rel_error(const std::vector<float>& a, const std::vector<float>& b, double floor = 1e-3) {
    EXPECT_EQ(a.size(), b.size());
    double worst = 0.0;
    for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i)
        worst = std::max(worst, std::abs(double(a[i]) - double(b[i])) / std::max(std::abs(double(b[i])), floor));
    return worst;
}

inline double rms(const std::vector<float>& v) {
    double s = 0.0;
    for (float x : v) s += double(x) * x;
    return v.empty() ? 0.0 : std::sqrt(s / double(v.size()));
}

// Tolerances: one bf16 rounding is 2^-8 relative (0.4 %); kernels that round inputs to bf16 and
// accumulate in fp32 stay within a few of those.
inline constexpr double kBf16Tol = 2e-2;
inline constexpr double kFp32Tol = 1e-4;

}  // namespace dlm::gpu_test
