#include "compute/cpu/cpu_kv_cache.h"

#include <algorithm>
#include <string>

#include "util/error.h"

namespace dlm::cpu {

CpuKvCache::CpuKvCache(int layers, int positions, int kv_dim)
    : layers_(layers), positions_(positions), kv_dim_(kv_dim) {
    if (layers <= 0 || positions < 0 || kv_dim <= 0)
        throw Error("K/V cache: invalid shape (" + std::to_string(layers) + " layers, " + std::to_string(positions) +
                    " positions, kv dim " + std::to_string(kv_dim) + ")");
    const std::size_t n = static_cast<std::size_t>(layers) * positions * kv_dim;
    try {
        k_.assign(n, 0.0f);
        v_.assign(n, 0.0f);
    } catch (const std::bad_alloc&) {
        throw Error("K/V cache: out of memory allocating " + std::to_string(2 * n * sizeof(float) >> 20) + " MiB for " +
                    std::to_string(positions) + " positions");
    }
    has_.assign(static_cast<std::size_t>(positions), 0);
}

bool CpuKvCache::has(int pos) const { return pos >= 0 && pos < positions_ && has_[pos] != 0; }

void CpuKvCache::clear() { std::fill(has_.begin(), has_.end(), 0); }

void CpuKvCache::mark(std::span<const int32_t> rows, bool present) {
    for (int32_t r : rows) has_.at(static_cast<std::size_t>(r)) = present ? 1 : 0;
}

void CpuKvCache::copy_rows_from(const KvCache& other_base, std::span<const int32_t> rows) {
    const auto* other = dynamic_cast<const CpuKvCache*>(&other_base);
    if (!other) throw Error("K/V cache copy: the source cache belongs to a different backend");
    if (other->layers_ != layers_ || other->kv_dim_ != kv_dim_)
        throw Error("K/V cache copy: the source cache has a different shape (" + std::to_string(other->layers_) +
                    " layers x kv dim " + std::to_string(other->kv_dim_) + ", expected " + std::to_string(layers_) +
                    " x " + std::to_string(kv_dim_) + ")");
    for (int32_t r : rows) {
        if (r < 0 || r >= positions_ || r >= other->positions_)
            throw Error("K/V cache copy: position " + std::to_string(r) + " is outside the caches (" +
                        std::to_string(std::min(positions_, other->positions_)) + " positions)");
    }
    if (other == this) return;
    for (int32_t r : rows) {
        for (int l = 0; l < layers_; ++l) {
            std::copy_n(other->k(l, r), kv_dim_, k(l, r));
            std::copy_n(other->v(l, r), kv_dim_, v(l, r));
        }
        has_[r] = other->has_[r];
    }
}

}  // namespace dlm::cpu
