#pragma once
// Counter-based randomness (Philox4x32-10, Salmon et al., SC'11): every draw is a pure function
// of (seed, stream, step, position, draw index), so a run is reproducible whatever order the
// positions are visited in, on any platform, and a replayed step draws exactly what it drew.
#include <array>
#include <cstdint>
#include <span>

namespace dlm {

// Independent streams for the different random decisions of a decode, so that adding draws to
// one never shifts another.
namespace rng_stream {
inline constexpr uint64_t kSampling = 0;       // Gumbel-max token sampling (row_stats)
inline constexpr uint64_t kRemasking = 1;      // LLaDA "random" remasking confidences
inline constexpr uint64_t kTransfer = 2;       // Dream "origin" Bernoulli transfer decisions
inline constexpr uint64_t kStrategy = 3;       // anything else a strategy needs
}  // namespace rng_stream

// The raw Philox4x32 bijection with 10 rounds (matches the Random123 known-answer vectors).
std::array<uint32_t, 4> philox4x32_10(std::array<uint32_t, 4> counter, std::array<uint32_t, 2> key);

class CounterRng {
public:
    explicit CounterRng(uint64_t seed, uint64_t stream = rng_stream::kSampling);

    // 64 random bits for draw `draw` of (step, position).
    uint64_t bits(uint64_t step, uint64_t position, uint64_t draw = 0) const;
    // Uniform double in the open interval (0, 1): 52 random bits on the grid (k + 1/2) / 2^52, so
    // log(u) and log(-log(u)) are always finite.
    double uniform(uint64_t step, uint64_t position, uint64_t draw = 0) const;
    // out[i] = uniform(step, position, first_draw + i), using both halves of each Philox block.
    void fill_uniform(uint64_t step, uint64_t position, uint64_t first_draw, std::span<double> out) const;

private:
    std::array<uint32_t, 4> block(uint64_t step, uint64_t position, uint64_t block_index) const;
    uint64_t key_ = 0;
};

// One-shot helpers for the decoder: the same values as CounterRng(seed, stream).
inline double uniform(uint64_t seed, uint64_t step, uint64_t position, uint64_t stream = rng_stream::kSampling,
                      uint64_t draw = 0) {
    return CounterRng(seed, stream).uniform(step, position, draw);
}
inline uint64_t random_bits(uint64_t seed, uint64_t step, uint64_t position, uint64_t stream = rng_stream::kSampling,
                            uint64_t draw = 0) {
    return CounterRng(seed, stream).bits(step, position, draw);
}

// 52 high bits of `x` mapped to (0, 1): the extremes 2^-53 and 1 - 2^-53 are exact doubles
// (53 bits would round the top value up to 1.0).
inline double bits_to_open_unit(uint64_t x) { return (static_cast<double>(x >> 12) + 0.5) * 0x1.0p-52; }

}  // namespace dlm
