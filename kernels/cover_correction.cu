#include "cover_correction.cuh"

#include <cstddef>

#include "attention_columns.cuh"
#include "cuda_check.h"

namespace dlm::cuda {

namespace {

using bf16 = __nv_bfloat16;

constexpr int kHeadsPerBlock = 4;  // one warp per (seed row, head)
constexpr unsigned kFullMask = 0xffffffffu;

struct CorrectionParams : AttentionRows {
    const int32_t* seed_rows;
    float scale;
    bf16* out;
    int out_stride;
    const float* out_f32;  // the attention's output before its rounding to bf16
    float* lse;
};

__device__ __forceinline__ float warp_sum(float x) {
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2) x += __shfl_xor_sync(kFullMask, x, offset);
    return x;
}

__global__ void __launch_bounds__(32 * kHeadsPerBlock) cover_correction_kernel(const CorrectionParams p) {
    const int h = blockIdx.y * kHeadsPerBlock + threadIdx.x / 32, lane = threadIdx.x % 32;
    const int i = p.seed_rows[blockIdx.x];
    if (h >= p.n_heads || i < 0 || i >= p.m) return;
    // Only a row verifying a seed read that seed's column overridden; any other row needs nothing.
    const int col = p.src.verified_column(p.row_pos[i]);
    if (col < 0) return;

    const int head_off = (h / p.group) * p.head_dim;
    const float* q = p.q + static_cast<std::size_t>(i) * p.q_stride + static_cast<std::size_t>(h) * p.head_dim;
    const bf16* k_ovr = p.src.k_override + static_cast<std::size_t>(col) * p.src.kv_dim + head_off;
    const bf16* v_ovr = p.src.v_override + static_cast<std::size_t>(col) * p.src.kv_dim + head_off;
    const bf16* k_new = p.src.k_fresh(col) + head_off;
    const bf16* v_new = p.src.v_fresh(col) + head_off;

    // q rounded to bf16 exactly as the attention kernel formed the scores the lse summarises.
    float dot_ovr = 0.0f, dot_new = 0.0f;
    for (int d = lane; d < p.head_dim; d += 32) {
        const float qd = __bfloat162float(__float2bfloat16(q[d]));
        dot_ovr += qd * __bfloat162float(k_ovr[d]);
        dot_new += qd * __bfloat162float(k_new[d]);
    }
    dot_ovr = warp_sum(dot_ovr);
    dot_new = warp_sum(dot_new);

    float* lse = p.lse + static_cast<std::size_t>(i) * p.n_heads + h;
    const float lse_ovr = *lse;
    const float log_alpha = dot_ovr * p.scale - lse_ovr;  // the overridden diagonal weight, in logs
    const float alpha = expf(log_alpha);
    const float w = expf(dot_new * p.scale - lse_ovr);  // alpha · e^delta, never forming e^delta alone
    const float r = w - expm1f(log_alpha);               // 1 - alpha + w, without cancelling 1 - alpha
    const float inv_r = 1.0f / r;

    const std::size_t at = static_cast<std::size_t>(i) * p.out_stride + static_cast<std::size_t>(h) * p.head_dim;
    bf16* o = p.out + at;
    // From the fp32 output: where α is near 1 the correction removes most of it, and the bf16
    // output's rounding would come out amplified by 1 / r (the first H200 run: 0.034 relative).
    const float* o32 = p.out_f32 + at;
    for (int d = lane; d < p.head_dim; d += 32) {
        const float corrected = (o32[d] - alpha * __bfloat162float(v_ovr[d]) + w * __bfloat162float(v_new[d])) * inv_r;
        o[d] = __float2bfloat16(corrected);
    }
    if (lane == 0) *lse = lse_ovr + logf(r);
}

}  // namespace

void launch_cover_correction(const AttentionArgs& args, const int32_t* seed_rows, int n_seed_rows, cudaStream_t stream) {
    validate_attention_args(args, "COVER correction");
    if (n_seed_rows <= 0 || args.m == 0) return;
    if (!seed_rows) throw Error("COVER correction: no seed row list");
    if (!args.out || !args.lse) throw Error("COVER correction: needs the attention output and its lse to correct");
    if (!args.out_f32) throw Error("COVER correction: needs the attention's fp32 output (AttentionArgs::out_f32)");
    if (!args.overridden) throw Error("COVER correction: the attention ran without override columns");
    if (args.out_stride < args.n_heads * args.head_dim)
        throw Error("COVER correction: output row stride " + std::to_string(args.out_stride) + " is shorter than " +
                    std::to_string(args.n_heads) + " heads of " + std::to_string(args.head_dim));

    CorrectionParams p{};
    static_cast<AttentionRows&>(p) = attention_rows(args);
    p.seed_rows = seed_rows;
    p.scale = args.scale;
    p.out = args.out;
    p.out_stride = args.out_stride;
    p.out_f32 = args.out_f32;
    p.lse = args.lse;

    const dim3 grid(static_cast<unsigned>(n_seed_rows),
                    static_cast<unsigned>((args.n_heads + kHeadsPerBlock - 1) / kHeadsPerBlock));
    cover_correction_kernel<<<grid, 32 * kHeadsPerBlock, 0, stream>>>(p);
    check_launch("COVER correction");
}

}  // namespace dlm::cuda
