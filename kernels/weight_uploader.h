#pragma once
// Converts checkpoint tensors (F32 / F16 / BF16, memory-mapped) to the device's storage types
// and uploads them chunk by chunk through two page-locked staging buffers: the host converts
// one chunk while the previous one is being copied, and a model of any size needs only the
// staging memory on the host.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstddef>

#include "cuda_stream.h"
#include "model/tensor_view.h"
#include "pinned_buffer.h"

namespace dlm::cuda {

class WeightUploader {
public:
    explicit WeightUploader(const CudaStream& stream);
    ~WeightUploader();
    WeightUploader(const WeightUploader&) = delete;
    WeightUploader& operator=(const WeightUploader&) = delete;

    // dst: device memory for t.numel() elements.
    void to_bf16(const TensorView& t, __nv_bfloat16* dst);
    void to_f32(const TensorView& t, float* dst);
    // Waits until every queued copy has landed.
    void finish();

private:
    // Calls convert(first_element, count, staging) per chunk and queues the chunk's copy.
    template <typename Convert>
    void upload(std::size_t count, std::size_t element_bytes, void* dst, Convert convert);

    static constexpr int kStages = 2;
    const CudaStream& stream_;
    PinnedBuffer<unsigned char> staging_[kStages];
    cudaEvent_t copied_[kStages] = {};
    int next_ = 0;
};

}  // namespace dlm::cuda
