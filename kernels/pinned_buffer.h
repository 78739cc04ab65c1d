#pragma once
// An owning page-locked host allocation: the staging memory of every host <-> device copy the
// backend makes, so that the copies are true asynchronous DMA. Like DeviceBuffer, a failed growth
// keeps the old allocation.
#include <cuda_runtime.h>

#include <cstddef>
#include <string>
#include <utility>

#include "cuda_check.h"
#include "util/error.h"

namespace dlm::cuda {

template <typename T>
class PinnedBuffer {
public:
    PinnedBuffer() = default;
    ~PinnedBuffer() { release(); }
    PinnedBuffer(const PinnedBuffer&) = delete;
    PinnedBuffer& operator=(const PinnedBuffer&) = delete;
    PinnedBuffer(PinnedBuffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), cap_(std::exchange(o.cap_, 0)) {}

    // Ensures room for `count` elements; contents are not preserved when it grows. The caller
    // makes sure no copy from or to the old memory is still in flight.
    void reserve(std::size_t count, const char* what = "pinned host buffer") {
        if (count <= cap_) return;
        void* p = nullptr;
        const std::size_t bytes = count * sizeof(T);
        const cudaError_t err = cudaHostAlloc(&p, bytes, cudaHostAllocDefault);
        if (err != cudaSuccess) {
            cudaGetLastError();
            throw Error(std::string("cannot allocate ") + std::to_string(bytes >> 20) + " MiB of page-locked host memory for " +
                        what + ": " + cudaGetErrorString(err));
        }
        release();
        ptr_ = static_cast<T*>(p);
        cap_ = count;
    }

    T* get() { return ptr_; }
    const T* get() const { return ptr_; }
    std::size_t capacity() const { return cap_; }

private:
    void release() {
        if (ptr_) cudaFreeHost(ptr_);
        ptr_ = nullptr;
        cap_ = 0;
    }
    T* ptr_ = nullptr;
    std::size_t cap_ = 0;
};

}  // namespace dlm::cuda
