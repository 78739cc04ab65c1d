#include "device_roofline.h"

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "cublas_gemm.h"
#include "cuda_check.h"
#include "cuda_stream.h"
#include "device_buffer.h"
#include "model/dtype.h"
#include "util/error.h"
#include "util/median.h"

namespace dlm::cuda {

namespace {

class Event {
public:
    Event() { check(cudaEventCreate(&event_), "cudaEventCreate"); }
    ~Event() { cudaEventDestroy(event_); }
    Event(const Event&) = delete;
    Event& operator=(const Event&) = delete;
    cudaEvent_t get() const { return event_; }

private:
    cudaEvent_t event_ = nullptr;
};

// Median seconds of `reps` runs of `op` on `stream` (each between its own pair of events),
// after `warmup` untimed runs.
template <typename Op>
double median_seconds(cudaStream_t stream, int warmup, int reps, Op op) {
    for (int i = 0; i < warmup; ++i) op();
    Event start, stop;
    std::vector<double> secs;
    for (int i = 0; i < reps; ++i) {
        check(cudaEventRecord(start.get(), stream), "cudaEventRecord");
        op();
        check(cudaEventRecord(stop.get(), stream), "cudaEventRecord");
        check(cudaEventSynchronize(stop.get()), "cudaEventSynchronize");
        float ms = 0;
        check(cudaEventElapsedTime(&ms, start.get(), stop.get()), "cudaEventElapsedTime");
        secs.push_back(ms * 1e-3);
    }
    return median(std::move(secs));
}

// Random bf16 values in about [-1, 1]: the matrix units draw more power (and clock lower) on
// random bits than on zeros, and a benchmark of real weights sees random bits.
std::vector<uint16_t> random_bf16(std::size_t count, uint64_t seed) {
    std::vector<uint16_t> v(count);
    uint64_t s = seed;
    for (auto& x : v) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        const float f = static_cast<float>(static_cast<int32_t>(s >> 32)) * (1.0f / 2147483648.0f);
        x = float_to_bf16(f);
    }
    return v;
}

std::string fixed(double v, int digits) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", digits, v);
    return buf;
}

}  // namespace

RooflineRates measure_device_roofline(const DeviceRooflineOptions& o) {
    if (o.gemm_size < 16 || o.gemm_reps < 1 || o.copy_reps < 1 || o.copy_bytes < 1024)
        throw Error("device roofline: nonsense options");
    CudaStream stream(o.device);
    stream.activate();
    cudaDeviceProp prop{};
    check(cudaGetDeviceProperties(&prop, o.device), "cudaGetDeviceProperties");
    RooflineRates r;

    {
        const int n = o.gemm_size;
        const std::size_t count = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
        DeviceBuffer<__nv_bfloat16> x(count, "roofline GEMM input"), w(count, "roofline GEMM weight");
        DeviceBuffer<float> y(count, "roofline GEMM output");
        const std::vector<uint16_t> hx = random_bf16(count, 1), hw = random_bf16(count, 2);
        check(cudaMemcpy(x.get(), hx.data(), count * 2, cudaMemcpyHostToDevice), "cudaMemcpy (roofline GEMM input)");
        check(cudaMemcpy(w.get(), hw.data(), count * 2, cudaMemcpyHostToDevice), "cudaMemcpy (roofline GEMM weight)");
        CublasGemm gemm(stream.get());
        const double secs = median_seconds(stream.get(), 3, o.gemm_reps,
                                           [&] { gemm.xwt(x.get(), n, n, w.get(), n, y.get(), false); });
        r.gemm_flops_per_s = 2.0 * n * double(n) * n / secs;
        r.how = std::string(prop.name) + ": cuBLAS bf16 GEMM " + std::to_string(n) + "^3 (fp32 accumulate and output, " +
                "the backend's call) " + fixed(r.gemm_flops_per_s / 1e12, 0) + " TFLOP/s";
    }
    {
        DeviceBuffer<unsigned char> a(o.copy_bytes, "roofline copy source"), b(o.copy_bytes, "roofline copy target");
        check(cudaMemsetAsync(a.get(), 0x5a, o.copy_bytes, stream.get()), "cudaMemsetAsync");
        const double secs = median_seconds(stream.get(), 2, o.copy_reps, [&] {
            check(cudaMemcpyAsync(b.get(), a.get(), o.copy_bytes, cudaMemcpyDeviceToDevice, stream.get()),
                  "cudaMemcpyAsync (device to device)");
        });
        r.copy_bytes_per_s = 2.0 * static_cast<double>(o.copy_bytes) / secs;  // read + written
        r.how += "; device-to-device copy of " + fixed(static_cast<double>(o.copy_bytes) / double(1 << 30), 2) +
                 " GiB " + fixed(r.copy_bytes_per_s / 1e9, 0) + " GB/s (read + written); medians of " +
                 std::to_string(o.gemm_reps) + " / " + std::to_string(o.copy_reps) + " timed runs";
    }
    stream.synchronize("device roofline");
    return r;
}

}  // namespace dlm::cuda
