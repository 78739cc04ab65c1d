#include "cuda_stream.h"

#include "cuda_check.h"

namespace dlm::cuda {

CudaStream::CudaStream(int device) : device_(device) {
    check(cudaSetDevice(device_), "cudaSetDevice");
    // Non-blocking: nothing else in the process (e.g. a library on the legacy default stream)
    // serialises against the backend's work.
    check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
}

CudaStream::~CudaStream() {
    if (!stream_) return;
    cudaSetDevice(device_);
    cudaStreamSynchronize(stream_);
    cudaStreamDestroy(stream_);
}

void CudaStream::activate() const { check(cudaSetDevice(device_), "cudaSetDevice"); }

void CudaStream::synchronize(const char* what) const { check(cudaStreamSynchronize(stream_), what); }

}  // namespace dlm::cuda
