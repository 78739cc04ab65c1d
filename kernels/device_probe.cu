#include "device_probe.h"

#include <cuda_runtime.h>

namespace dlm::cuda {

DeviceProbe probe_device() {
    DeviceProbe p;
    cudaError_t err = cudaGetDeviceCount(&p.device_count);
    if (err != cudaSuccess) {
        p.device_count = 0;
        p.message = std::string("no usable CUDA device: ") + cudaGetErrorString(err);
        cudaGetLastError();  // clear the sticky error so later calls start clean
        return p;
    }
    if (p.device_count == 0) {
        p.message = "no CUDA device present";
        return p;
    }
    cudaDeviceProp prop{};
    err = cudaGetDeviceProperties(&prop, 0);
    if (err != cudaSuccess) {
        p.message = std::string("cannot read CUDA device 0: ") + cudaGetErrorString(err);
        return p;
    }
    p.available = true;
    p.name = prop.name;
    p.compute_major = prop.major;
    p.compute_minor = prop.minor;
    p.total_memory = prop.totalGlobalMem;
    return p;
}

}  // namespace dlm::cuda
