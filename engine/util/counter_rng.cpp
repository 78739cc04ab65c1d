#include "util/counter_rng.h"

namespace dlm {

namespace {

constexpr uint32_t kMul0 = 0xD2511F53u;
constexpr uint32_t kMul1 = 0xCD9E8D57u;
constexpr uint32_t kWeyl0 = 0x9E3779B9u;  // golden ratio
constexpr uint32_t kWeyl1 = 0xBB67AE85u;  // sqrt(3) - 1

inline void mulhilo(uint32_t a, uint32_t b, uint32_t& hi, uint32_t& lo) {
    uint64_t p = static_cast<uint64_t>(a) * b;
    hi = static_cast<uint32_t>(p >> 32);
    lo = static_cast<uint32_t>(p);
}

// SplitMix64 finaliser: folds the 64-bit seed and stream into one well-mixed Philox key.
inline uint64_t mix64(uint64_t z) {
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

}  // namespace

std::array<uint32_t, 4> philox4x32_10(std::array<uint32_t, 4> c, std::array<uint32_t, 2> k) {
    for (int round = 0; round < 10; ++round) {
        if (round > 0) {
            k[0] += kWeyl0;
            k[1] += kWeyl1;
        }
        uint32_t hi0, lo0, hi1, lo1;
        mulhilo(kMul0, c[0], hi0, lo0);
        mulhilo(kMul1, c[2], hi1, lo1);
        c = {hi1 ^ c[1] ^ k[0], lo1, hi0 ^ c[3] ^ k[1], lo0};
    }
    return c;
}

CounterRng::CounterRng(uint64_t seed, uint64_t stream) : key_(mix64(seed ^ mix64(stream))) {}

// Counter = (block index, position, step), 128 bits: draw indices and positions below 2^32
// (always, in practice) map to distinct counters; the high halves are folded into the key.
std::array<uint32_t, 4> CounterRng::block(uint64_t step, uint64_t position, uint64_t block_index) const {
    uint64_t key = key_;
    uint64_t high = (position >> 32) | ((block_index >> 32) << 32);
    if (high != 0) key = mix64(key ^ mix64(high));
    std::array<uint32_t, 4> counter = {static_cast<uint32_t>(block_index), static_cast<uint32_t>(position),
                                       static_cast<uint32_t>(step), static_cast<uint32_t>(step >> 32)};
    return philox4x32_10(counter, {static_cast<uint32_t>(key), static_cast<uint32_t>(key >> 32)});
}

uint64_t CounterRng::bits(uint64_t step, uint64_t position, uint64_t draw) const {
    auto b = block(step, position, draw >> 1);
    int half = static_cast<int>(draw & 1) * 2;
    return (static_cast<uint64_t>(b[half]) << 32) | b[half + 1];
}

double CounterRng::uniform(uint64_t step, uint64_t position, uint64_t draw) const {
    return bits_to_open_unit(bits(step, position, draw));
}

void CounterRng::fill_uniform(uint64_t step, uint64_t position, uint64_t first_draw, std::span<double> out) const {
    std::size_t i = 0;
    uint64_t draw = first_draw;
    while (i < out.size()) {
        auto b = block(step, position, draw >> 1);
        for (int half = static_cast<int>(draw & 1); half < 2 && i < out.size(); ++half, ++draw, ++i) {
            uint64_t x = (static_cast<uint64_t>(b[half * 2]) << 32) | b[half * 2 + 1];
            out[i] = bits_to_open_unit(x);
        }
    }
}

}  // namespace dlm
