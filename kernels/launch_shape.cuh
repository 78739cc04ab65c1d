#pragma once
// Launch-geometry helpers shared by the row-wise and elementwise kernels: how many threads and
// blocks to use for a given amount of work, and whether a pointer allows a vectorised access.
#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace dlm::cuda {

// gridDim.y (and z) limit; gridDim.x allows 2^31 - 1 but grid-stride loops make huge grids pointless.
inline constexpr int kMaxGridY = 65535;
inline constexpr int kMaxGridX = 65535;

inline bool is_aligned(const void* p, std::size_t bytes) { return reinterpret_cast<std::uintptr_t>(p) % bytes == 0; }

// Threads for `work` items handled by one block: whole warps (so warp shuffles see full warps),
// no more warps than there is work, at most `max_threads`.
inline int warp_multiple_threads(long long work, int max_threads = 256) {
    const long long warps = std::max<long long>(1, (work + 31) / 32);
    return static_cast<int>(std::min<long long>(warps * 32, max_threads));
}

// Blocks to cover `work` items with `threads` per block, capped (kernels loop grid-stride).
inline int capped_blocks(long long work, int threads, int max_blocks = kMaxGridX) {
    const long long blocks = std::max<long long>(1, (work + threads - 1) / threads);
    return static_cast<int>(std::min<long long>(blocks, max_blocks));
}

}  // namespace dlm::cuda
