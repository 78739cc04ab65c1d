#pragma once
// Device side of the engine's counter-based generator (util/counter_rng.h): the same Philox4x32-10
// bijection, key derivation and (step, position, draw) -> block mapping, so a token sampled on the
// GPU draws exactly the uniform the CPU reference draws. tests/gpu pins the two together.
#include <cuda_runtime.h>

#include <cstdint>

namespace dlm::cuda {

// The key of CounterRng(seed, stream) (computed on the host, passed to kernels).
uint64_t philox_key(uint64_t seed, uint64_t stream);

// philox_uniform evaluated on the host by the very code the kernels inline, so a machine without
// a GPU can still check the device path's arithmetic against CounterRng.
double philox_uniform_host(uint64_t key, uint64_t step, uint64_t position, uint64_t draw);

// out[i] = philox_uniform(key, step, position, first_draw + i) for i < count, on the device (the
// GPU test's probe of the inlined device path).
void launch_philox_fill(uint64_t key, uint64_t step, uint64_t position, uint64_t first_draw, int count, double* out,
                        cudaStream_t stream);

#ifdef __CUDACC__

namespace philox_detail {

// SplitMix64 finaliser, as util/counter_rng.cpp's mix64.
__host__ __device__ __forceinline__ uint64_t mix64(uint64_t z) {
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

// Philox4x32-10 on c[0..3] with key (k0, k1), in place (the same round as philox4x32_10).
// (A fixed 10-iteration loop: nvcc unrolls it fully without being told.)
__host__ __device__ __forceinline__ void philox4x32_10(uint32_t c[4], uint32_t k0, uint32_t k1) {
    for (int round = 0; round < 10; ++round) {
        if (round > 0) {
            k0 += 0x9E3779B9u;
            k1 += 0xBB67AE85u;
        }
        // The high and low halves of the 32x32 -> 64 products; on the device as two 32-bit
        // multiplies (nvcc would otherwise emit a full 64-bit multiply).
#ifdef __CUDA_ARCH__
        const uint32_t hi0 = __umulhi(0xD2511F53u, c[0]), lo0 = 0xD2511F53u * c[0];
        const uint32_t hi1 = __umulhi(0xCD9E8D57u, c[2]), lo1 = 0xCD9E8D57u * c[2];
#else
        const uint64_t p0 = static_cast<uint64_t>(0xD2511F53u) * c[0];
        const uint64_t p1 = static_cast<uint64_t>(0xCD9E8D57u) * c[2];
        const uint32_t hi0 = static_cast<uint32_t>(p0 >> 32), lo0 = static_cast<uint32_t>(p0);
        const uint32_t hi1 = static_cast<uint32_t>(p1 >> 32), lo1 = static_cast<uint32_t>(p1);
#endif
        const uint32_t n0 = hi1 ^ c[1] ^ k0;
        const uint32_t n2 = hi0 ^ c[3] ^ k1;
        c[0] = n0;
        c[1] = lo1;
        c[2] = n2;
        c[3] = lo0;
    }
}

}  // namespace philox_detail

// CounterRng::uniform(step, position, draw) for the key above. Defined inline here (the kernels
// are built without separable compilation, so a device function must live in the header); also
// callable on the host, which is how philox_uniform_host shares it.
__host__ __device__ __forceinline__ double philox_uniform(uint64_t key, uint64_t step, uint64_t position,
                                                          uint64_t draw) {
    // Counter = (block index, position, step); the high halves of position and block index fold
    // into the key, exactly as CounterRng::block does.
    const uint64_t block_index = draw >> 1;
    const uint64_t high = (position >> 32) | ((block_index >> 32) << 32);
    if (high != 0) key = philox_detail::mix64(key ^ philox_detail::mix64(high));
    uint32_t c[4] = {static_cast<uint32_t>(block_index), static_cast<uint32_t>(position), static_cast<uint32_t>(step),
                     static_cast<uint32_t>(step >> 32)};
    philox_detail::philox4x32_10(c, static_cast<uint32_t>(key), static_cast<uint32_t>(key >> 32));
    // Even draws take words 0-1 of the block, odd draws words 2-3.
    const bool odd = (draw & 1) != 0;
    const uint64_t bits = (static_cast<uint64_t>(odd ? c[2] : c[0]) << 32) | (odd ? c[3] : c[1]);
    // bits_to_open_unit: 52 high bits on the grid (k + 1/2) / 2^52; every step is exact in double.
    return (static_cast<double>(bits >> 12) + 0.5) * 0x1.0p-52;
}
#endif

}  // namespace dlm::cuda
