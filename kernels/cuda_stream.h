#pragma once
// The one stream a CUDA backend runs everything on, with the device it belongs to. Shared (by
// shared_ptr) with the K/V caches and posterior stores the backend makes, so that their copies
// are ordered with the forwards and stay valid whichever object is destroyed last.
#include <cuda_runtime.h>

#include <cstddef>

#include "copy_timer.h"

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
    // Queues a copy on the stream; host<->device copies are timed (Backend::transfers()).
    void copy(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind, const char* what) const {
        copies_.copy(dst, src, bytes, kind, stream_, what);
    }
    TransferTotals transfers() const { return copies_.totals(); }

private:
    int device_ = 0;
    cudaStream_t stream_ = nullptr;
    // Mutable: timing a copy changes no state of the stream that its users share (they hold it
    // const), only the tally of what went through it.
    mutable CopyTimer copies_;
};

}  // namespace dlm::cuda
