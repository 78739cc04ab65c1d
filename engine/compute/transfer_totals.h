#pragma once
// What a backend has copied between host and device memory during decoding, and how long the
// copies took on the device (design.md §3: one small upload per forward, one small download per
// statistics call). A backend without device memory (the CPU's) copies nothing.
#include <cstdint>

namespace dlm {

struct TransferTotals {
    uint64_t to_device_copies = 0, to_device_bytes = 0;
    uint64_t to_host_copies = 0, to_host_bytes = 0;
    double to_device_ms = 0, to_host_ms = 0;  // device time of the copies themselves, not the waits before them

    double ms() const { return to_device_ms + to_host_ms; }
    uint64_t bytes() const { return to_device_bytes + to_host_bytes; }
    uint64_t copies() const { return to_device_copies + to_host_copies; }
    // The copies made between `earlier` and this reading.
    TransferTotals since(const TransferTotals& earlier) const {
        return {to_device_copies - earlier.to_device_copies, to_device_bytes - earlier.to_device_bytes,
                to_host_copies - earlier.to_host_copies,     to_host_bytes - earlier.to_host_bytes,
                to_device_ms - earlier.to_device_ms,         to_host_ms - earlier.to_host_ms};
    }
};

}  // namespace dlm
