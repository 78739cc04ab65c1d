#pragma once
// bf16 K/V of every canvas position and layer on the device ([layer][position][kv_dim], K after
// RoPE), with the has() bitmap on the host where the validation reads it.
#include <cuda_bf16.h>

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "compute/kv_cache.h"
#include "cuda_stream.h"
#include "device_buffer.h"

namespace dlm::cuda {

class CudaKvCache final : public KvCache {
public:
    // Throws dlm::Error (out of memory: bytes asked and free) when the device has no room.
    CudaKvCache(std::shared_ptr<const CudaStream> stream, int layers, int positions, int kv_dim);

    int positions() const override { return positions_; }
    bool has(int pos) const override;
    void clear() override;
    // Device-to-device, one copy per run of consecutive rows (all layers at once), queued on the
    // backend's stream so it is ordered with the forwards.
    void copy_rows_from(const KvCache& other, std::span<const int32_t> rows) override;

    int layers() const { return layers_; }
    int kv_dim() const { return kv_dim_; }
    // Layer `layer` as [positions][kv_dim].
    __nv_bfloat16* k(int layer) { return k_.get() + layer_offset(layer); }
    __nv_bfloat16* v(int layer) { return v_.get() + layer_offset(layer); }
    const __nv_bfloat16* k(int layer) const { return k_.get() + layer_offset(layer); }
    const __nv_bfloat16* v(int layer) const { return v_.get() + layer_offset(layer); }
    // Marks positions as holding (or, before a forward overwrites them, not holding) K/V.
    void mark(std::span<const int32_t> rows, bool present = true);

private:
    std::size_t layer_offset(int layer) const { return static_cast<std::size_t>(layer) * positions_ * kv_dim_; }
    std::shared_ptr<const CudaStream> stream_;
    int layers_, positions_, kv_dim_;
    DeviceBuffer<__nv_bfloat16> k_, v_;
    std::vector<uint8_t> has_;
};

}  // namespace dlm::cuda
