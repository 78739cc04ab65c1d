#pragma once
// Vectorised bf16 loads and stores (8 and 16 bytes): one memory instruction for 4 or 8 bf16
// instead of one per element. The bits travel through integer words, since bf16 structs are
// otherwise moved element by element.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>

namespace dlm::cuda {

#ifdef __CUDACC__
__device__ __forceinline__ uint32_t bf16x2_bits(float lo, float hi) {
    const __nv_bfloat162 pair = __floats2bfloat162_rn(lo, hi);  // round to nearest even
    uint32_t bits;
    memcpy(&bits, &pair, sizeof bits);
    return bits;
}

// dst[0..3] = bf16(a, b, c, d); dst must be 8-byte aligned.
__device__ __forceinline__ void store_bf16x4(__nv_bfloat16* dst, float a, float b, float c, float d) {
    *reinterpret_cast<uint2*>(dst) = make_uint2(bf16x2_bits(a, b), bf16x2_bits(c, d));
}

// out[0..7] = float(src[0..7]); src must be 16-byte aligned. A bf16 is the top half of its fp32.
__device__ __forceinline__ void load_bf16x8(const __nv_bfloat16* src, float (&out)[8]) {
    const uint4 raw = *reinterpret_cast<const uint4*>(src);
    const uint32_t words[4] = {raw.x, raw.y, raw.z, raw.w};
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        out[2 * i] = __uint_as_float(words[i] << 16);
        out[2 * i + 1] = __uint_as_float(words[i] & 0xFFFF0000u);
    }
}
#endif

}  // namespace dlm::cuda
