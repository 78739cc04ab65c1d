#pragma once
// An owning device allocation. Growing it reports out-of-memory with the bytes asked and what was
// free (cuda_check.h); a failed growth keeps the old allocation, so the caller's state survives.
#include <cuda_runtime.h>

#include <cstddef>
#include <utility>

#include "cuda_check.h"
#include "util/error.h"

namespace dlm::cuda {

template <typename T>
class DeviceBuffer {
public:
    DeviceBuffer() = default;
    explicit DeviceBuffer(std::size_t count, const char* what = "device buffer") { reserve(count, what); }
    ~DeviceBuffer() { release(); }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), cap_(std::exchange(o.cap_, 0)) {}
    DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
        if (this != &o) {
            release();
            ptr_ = std::exchange(o.ptr_, nullptr);
            cap_ = std::exchange(o.cap_, 0);
        }
        return *this;
    }

    // Ensures room for `count` elements; contents are not preserved when it grows.
    void reserve(std::size_t count, const char* what = "device buffer") {
        if (count <= cap_) return;
        void* p = nullptr;
        const std::size_t bytes = count * sizeof(T);
        cudaError_t err = cudaMalloc(&p, bytes);
        if (err == cudaErrorMemoryAllocation) throw Error(out_of_memory_message(what, bytes));
        check(err, what);
        release();
        ptr_ = static_cast<T*>(p);
        cap_ = count;
    }

    T* get() { return ptr_; }
    const T* get() const { return ptr_; }
    std::size_t capacity() const { return cap_; }
    std::size_t bytes() const { return cap_ * sizeof(T); }

private:
    void release() {
        if (ptr_) cudaFree(ptr_);
        ptr_ = nullptr;
        cap_ = 0;
    }
    T* ptr_ = nullptr;
    std::size_t cap_ = 0;
};

}  // namespace dlm::cuda
