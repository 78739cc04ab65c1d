#pragma once
// Measures the two ceilings of the forward benchmark's roofline on a CUDA device (plain C++
// header: the CLI includes it): the bf16 matrix rate of the backend's own cuBLAS call
// (cublas_gemm.h: bf16 x bf16 with fp32 accumulation into fp32) on random data, and the
// device-to-device copy bandwidth (bytes read + written).
#include <cstddef>
#include <string>

#include "bench/roofline.h"

namespace dlm::cuda {

struct DeviceRooflineOptions {
    int device = 0;
    int gemm_size = 8192;                       // m = n = k
    int gemm_reps = 10;                         // timed, after 3 warm-ups; the median is kept
    std::size_t copy_bytes = std::size_t(1) << 30;  // per copy; two buffers of this size live
    int copy_reps = 10;
};

// Throws dlm::Error when no device is usable or the buffers (~0.9 GB + 2 x copy_bytes) do not fit.
RooflineRates measure_device_roofline(const DeviceRooflineOptions& options = {});

}  // namespace dlm::cuda
