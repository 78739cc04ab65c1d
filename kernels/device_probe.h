#pragma once
// Whether a usable CUDA device is present, without exposing CUDA types to the engine.
#include <string>

namespace dlm::cuda {

struct DeviceProbe {
    bool available = false;
    int device_count = 0;
    std::string name;          // device 0
    int compute_major = 0;
    int compute_minor = 0;
    unsigned long long total_memory = 0;
    std::string message;       // why not available, in words (no driver, no device, ...)
};

DeviceProbe probe_device();

}  // namespace dlm::cuda
