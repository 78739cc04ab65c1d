#include "weight_uploader.h"

#include <algorithm>
#include <cstring>

#include "cuda_check.h"
#include "model/dtype.h"

namespace dlm::cuda {

namespace {

constexpr std::size_t kStageBytes = std::size_t(16) << 20;

// Element i of a mapped tensor, read with memcpy (the mapping gives no alignment guarantee).
uint16_t load_u16(const std::byte* p, std::size_t i) {
    uint16_t v;
    std::memcpy(&v, p + i * 2, 2);
    return v;
}
float load_f32(const std::byte* p, std::size_t i) {
    float v;
    std::memcpy(&v, p + i * 4, 4);
    return v;
}

}  // namespace

WeightUploader::WeightUploader(const CudaStream& stream) : stream_(stream) {
    try {
        for (int i = 0; i < kStages; ++i) {
            staging_[i].reserve(kStageBytes, "weight upload staging");
            check(cudaEventCreateWithFlags(&copied_[i], cudaEventDisableTiming), "cudaEventCreate");
        }
    } catch (...) {
        for (cudaEvent_t& e : copied_)
            if (e) cudaEventDestroy(e);
        throw;
    }
}

WeightUploader::~WeightUploader() {
    // The staging memory may only go once no copy reads it any more.
    cudaStreamSynchronize(stream_.get());
    for (cudaEvent_t& e : copied_)
        if (e) cudaEventDestroy(e);
}

template <typename Convert>
void WeightUploader::upload(std::size_t count, std::size_t element_bytes, void* dst, Convert convert) {
    const std::size_t per_chunk = kStageBytes / element_bytes;
    for (std::size_t first = 0; first < count; first += per_chunk) {
        const std::size_t n = std::min(per_chunk, count - first);
        const int s = next_;
        next_ = (next_ + 1) % kStages;
        check(cudaEventSynchronize(copied_[s]), "weight upload");  // the stage's previous copy is done
        convert(first, n, staging_[s].get());
        check(cudaMemcpyAsync(static_cast<unsigned char*>(dst) + first * element_bytes, staging_[s].get(),
                              n * element_bytes, cudaMemcpyHostToDevice, stream_.get()),
              "weight upload");
        check(cudaEventRecord(copied_[s], stream_.get()), "weight upload");
    }
}

void WeightUploader::to_bf16(const TensorView& t, __nv_bfloat16* dst) {
    const std::byte* src = t.data;
    const DType type = t.dtype;
    upload(static_cast<std::size_t>(t.numel()), sizeof(uint16_t), dst,
           [src, type](std::size_t first, std::size_t n, unsigned char* out) {
               auto* o = reinterpret_cast<uint16_t*>(out);
               switch (type) {
                   case DType::BF16: std::memcpy(o, src + first * 2, n * 2); break;
                   case DType::F32:
                       for (std::size_t i = 0; i < n; ++i) o[i] = float_to_bf16(load_f32(src, first + i));
                       break;
                   case DType::F16:
                       for (std::size_t i = 0; i < n; ++i) o[i] = float_to_bf16(f16_to_float(load_u16(src, first + i)));
                       break;
               }
           });
}

void WeightUploader::to_f32(const TensorView& t, float* dst) {
    const std::byte* src = t.data;
    const DType type = t.dtype;
    upload(static_cast<std::size_t>(t.numel()), sizeof(float), dst,
           [src, type](std::size_t first, std::size_t n, unsigned char* out) {
               convert_to_f32(type, src + first * dtype_size(type), reinterpret_cast<float*>(out), n);
           });
}

void WeightUploader::finish() { stream_.synchronize("weight upload"); }

}  // namespace dlm::cuda
