#include "cuda_kv_cache.h"

#include <algorithm>
#include <string>
#include <utility>

#include "cuda_check.h"
#include "util/error.h"

namespace dlm::cuda {

CudaKvCache::CudaKvCache(std::shared_ptr<const CudaStream> stream, int layers, int positions, int kv_dim)
    : stream_(std::move(stream)), layers_(layers), positions_(positions), kv_dim_(kv_dim) {
    if (layers <= 0 || positions < 0 || kv_dim <= 0)
        throw Error("K/V cache: invalid shape (" + std::to_string(layers) + " layers, " + std::to_string(positions) +
                    " positions, kv dim " + std::to_string(kv_dim) + ")");
    stream_->activate();
    const std::size_t n = static_cast<std::size_t>(layers) * positions * kv_dim;
    if (n > 0) {
        k_.reserve(n, "K/V cache (keys)");
        v_.reserve(n, "K/V cache (values)");
        // Zeros rather than whatever the allocator returns: a column is only read once it has been
        // written, but a NaN pattern must never be able to leak into a masked-out product.
        check(cudaMemsetAsync(k_.get(), 0, n * sizeof(__nv_bfloat16), stream_->get()), "K/V cache clear");
        check(cudaMemsetAsync(v_.get(), 0, n * sizeof(__nv_bfloat16), stream_->get()), "K/V cache clear");
    }
    has_.assign(static_cast<std::size_t>(positions), 0);
}

bool CudaKvCache::has(int pos) const { return pos >= 0 && pos < positions_ && has_[static_cast<std::size_t>(pos)] != 0; }

void CudaKvCache::clear() { std::fill(has_.begin(), has_.end(), 0); }

void CudaKvCache::mark(std::span<const int32_t> rows, bool present) {
    for (int32_t r : rows) has_.at(static_cast<std::size_t>(r)) = present ? 1 : 0;
}

void CudaKvCache::copy_rows_from(const KvCache& other_base, std::span<const int32_t> rows) {
    const auto* other = dynamic_cast<const CudaKvCache*>(&other_base);
    if (!other) throw Error("K/V cache copy: the source cache belongs to a different backend");
    if (other->layers_ != layers_ || other->kv_dim_ != kv_dim_)
        throw Error("K/V cache copy: the source cache has a different shape (" + std::to_string(other->layers_) +
                    " layers x kv dim " + std::to_string(other->kv_dim_) + ", expected " + std::to_string(layers_) +
                    " x " + std::to_string(kv_dim_) + ")");
    if (other->stream_->device() != stream_->device())
        throw Error("K/V cache copy: the source cache lives on another GPU");
    for (int32_t r : rows) {
        if (r < 0 || r >= positions_ || r >= other->positions_)
            throw Error("K/V cache copy: position " + std::to_string(r) + " is outside the caches (" +
                        std::to_string(std::min(positions_, other->positions_)) + " positions)");
    }
    if (other == this) return;
    std::vector<int32_t> sorted(rows.begin(), rows.end());
    std::sort(sorted.begin(), sorted.end());
    sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
    stream_->activate();
    const std::size_t row_bytes = static_cast<std::size_t>(kv_dim_) * sizeof(__nv_bfloat16);
    const std::size_t dst_pitch = static_cast<std::size_t>(positions_) * row_bytes;
    const std::size_t src_pitch = static_cast<std::size_t>(other->positions_) * row_bytes;
    for (std::size_t i = 0; i < sorted.size();) {
        std::size_t j = i + 1;
        while (j < sorted.size() && sorted[j] == sorted[j - 1] + 1) ++j;
        // One 2-D copy per run: `layers` rows of (run length x kv_dim) elements, each layer at its
        // own pitch in the two caches.
        const std::size_t first = static_cast<std::size_t>(sorted[i]);
        const std::size_t width = (j - i) * row_bytes;
        for (const auto& [dst, src] : {std::pair{k_.get(), other->k_.get()}, std::pair{v_.get(), other->v_.get()}})
            check(cudaMemcpy2DAsync(dst + first * kv_dim_, dst_pitch, src + first * kv_dim_, src_pitch, width,
                                    static_cast<std::size_t>(layers_), cudaMemcpyDeviceToDevice, stream_->get()),
                  "K/V cache copy");
        i = j;
    }
    for (int32_t r : sorted) has_[static_cast<std::size_t>(r)] = other->has_[static_cast<std::size_t>(r)];
}

}  // namespace dlm::cuda
