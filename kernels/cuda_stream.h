#pragma once
// The one stream a CUDA backend runs everything on, with the device it belongs to. Shared (by
// shared_ptr) with the K/V caches and posterior stores the backend makes, so that their copies
// are ordered with the forwards and stay valid whichever object is destroyed last.
#include <cuda_runtime.h>

namespace dlm::cuda {

class CudaStream {
public:
    explicit CudaStream(int device);
    ~CudaStream();
    CudaStream(const CudaStream&) = delete;
    CudaStream& operator=(const CudaStream&) = delete;

    int device() const { return device_; }
    cudaStream_t get() const { return stream_; }
    // Makes the device current on the calling thread (the current device is per host thread, and
    // the app decodes on a worker thread).
    void activate() const;
    // Waits for everything queued so far; `what` names the operation in an error.
    void synchronize(const char* what) const;

private:
    int device_ = 0;
    cudaStream_t stream_ = nullptr;
};

}  // namespace dlm::cuda
