#pragma once
// Raw posteriors per position on the device ([positions][vocab] fp32, SureLock's p_{t-1}), read
// and rewritten in place by the fused row-statistics kernel, with the has() bitmap on the host.
// The array is allocated on first use, so a run that never keeps posteriors pays nothing.
#include <cstdint>
#include <memory>
#include <vector>

#include "compute/row_stats.h"
#include "cuda_stream.h"
#include "device_buffer.h"

namespace dlm::cuda {

class CudaPosteriorStore final : public PosteriorStore {
public:
    CudaPosteriorStore(std::shared_ptr<const CudaStream> stream, int positions, int vocab);

    bool has(int pos) const override;
    void erase(int pos) override;
    void clear() override;

    int positions() const { return static_cast<int>(has_.size()); }
    int vocab() const { return vocab_; }
    // The [positions][vocab] array, allocated now if it was not (throws dlm::Error when the device
    // has no room; the store is then unchanged).
    float* device_rows();
    void mark(int pos) { has_.at(static_cast<std::size_t>(pos)) = 1; }
    // Row `pos` of that array (the CPU fallback of row statistics copies it to and from the host).
    float* device_row(int pos);

private:
    void check_position(int pos) const;
    std::shared_ptr<const CudaStream> stream_;
    int vocab_;
    DeviceBuffer<float> rows_;
    std::vector<uint8_t> has_;
};

}  // namespace dlm::cuda
