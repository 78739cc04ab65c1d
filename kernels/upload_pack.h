#pragma once
// The small per-call index arrays (rows' tokens and positions, override flags, head-row indices,
// ...) gathered on the host and sent to the device in ONE copy through page-locked memory, instead
// of one small copy per array per item.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstring>
#include <span>
#include <vector>

#include "cuda_stream.h"
#include "device_buffer.h"
#include "pinned_buffer.h"

namespace dlm::cuda {

class UploadPack {
public:
    explicit UploadPack(const CudaStream& stream);
    ~UploadPack();
    UploadPack(const UploadPack&) = delete;
    UploadPack& operator=(const UploadPack&) = delete;

    // Starts a new pack. Device pointers of the previous one stay valid for work already queued.
    void clear() { host_.clear(); }
    // Appends `values`; the returned offset finds them on the device after upload().
    template <typename T>
    std::size_t add(std::span<const T> values) {
        const std::size_t offset = (host_.size() + kAlign - 1) / kAlign * kAlign;
        host_.resize(offset + values.size_bytes());
        if (!values.empty()) std::memcpy(host_.data() + offset, values.data(), values.size_bytes());
        return offset;
    }
    template <typename T>
    std::size_t add(const std::vector<T>& values) {
        return add(std::span<const T>(values));
    }
    // Queues the copy on the stream (device memory grows when needed; `what` names it in errors).
    void upload(const char* what);
    template <typename T>
    const T* device(std::size_t offset) const {
        return reinterpret_cast<const T*>(device_.get() + offset);
    }

private:
    static constexpr std::size_t kAlign = 16;
    const CudaStream& stream_;  // outlived by its owner's stream
    std::vector<unsigned char> host_;
    PinnedBuffer<unsigned char> pinned_;
    DeviceBuffer<unsigned char> device_;
    cudaEvent_t copied_ = nullptr;  // the last copy out of pinned_ has finished
};

}  // namespace dlm::cuda
