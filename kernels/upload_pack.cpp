#include "upload_pack.h"

#include "cuda_check.h"

namespace dlm::cuda {

UploadPack::UploadPack(const CudaStream& stream) : stream_(stream) {
    check(cudaEventCreateWithFlags(&copied_, cudaEventDisableTiming), "cudaEventCreate");
}

UploadPack::~UploadPack() {
    if (copied_) {
        cudaEventSynchronize(copied_);
        cudaEventDestroy(copied_);
    }
}

void UploadPack::upload(const char* what) {
    if (host_.empty()) return;
    // The page-locked buffer is rewritten only once its previous copy has landed.
    check(cudaEventSynchronize(copied_), what);
    if (host_.size() > pinned_.capacity() || host_.size() > device_.capacity()) {
        // Growing frees the old buffers: nothing queued may still read them.
        stream_.synchronize(what);
        pinned_.reserve(host_.size() * 2, what);
        device_.reserve(host_.size() * 2, what);
    }
    std::memcpy(pinned_.get(), host_.data(), host_.size());
    stream_.copy(device_.get(), pinned_.get(), host_.size(), cudaMemcpyHostToDevice, what);
    check(cudaEventRecord(copied_, stream_.get()), what);
}

}  // namespace dlm::cuda
