#pragma once
// fp32 K/V of every canvas position and layer, in host memory. K is stored after RoPE, so a
// cached key can be used at its position without rotating it again.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "compute/kv_cache.h"

namespace dlm::cpu {

class CpuKvCache final : public KvCache {
public:
    CpuKvCache(int layers, int positions, int kv_dim);

    int positions() const override { return positions_; }
    bool has(int pos) const override;
    void clear() override;
    void copy_rows_from(const KvCache& other, std::span<const int32_t> rows) override;

    int layers() const { return layers_; }
    int kv_dim() const { return kv_dim_; }
    float* k(int layer, int pos) { return k_.data() + offset(layer, pos); }
    float* v(int layer, int pos) { return v_.data() + offset(layer, pos); }
    const float* k(int layer, int pos) const { return k_.data() + offset(layer, pos); }
    const float* v(int layer, int pos) const { return v_.data() + offset(layer, pos); }
    // Marks positions as holding (or, before a forward overwrites them, not holding) K/V for
    // every layer, so an interrupted forward never leaves half-written positions marked.
    void mark(std::span<const int32_t> rows, bool present = true);

private:
    std::size_t offset(int layer, int pos) const {
        return (static_cast<std::size_t>(layer) * positions_ + pos) * kv_dim_;
    }
    int layers_, positions_, kv_dim_;
    std::vector<float> k_, v_;  // [layer][position][kv_dim]
    std::vector<uint8_t> has_;
};

}  // namespace dlm::cpu
