#include "attention.cuh"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <string>
#include <string_view>
#include <type_traits>

#include "attention_columns.cuh"
#include "cuda_check.h"
#include "mma_bf16.cuh"

namespace dlm::cuda {

namespace {

using bf16 = __nv_bfloat16;

// Flash attention on tensor cores (mma.sync m16n8k16, bf16 in, fp32 accumulate). A block owns 64
// query rows of one K/V head: with grouped-query attention the rows are (query row, head of the
// group) pairs, so the group's heads share every K/V tile the block stages. Each of the 4 warps
// owns 16 of those rows end to end (Q fragments, scores, online softmax, output accumulators);
// K/V tiles are double-buffered in shared memory with cp.async so the next tile loads while the
// current one is multiplied. Head dims are padded to 64, 128 or 256 with zeros.
constexpr int kWarps = 4;
constexpr int kThreads = 32 * kWarps;
constexpr int kBlockRows = 16 * kWarps;
constexpr int kMaxSplits = 16;
constexpr int kMinTilesPerSplit = 2;  // below this the split's prologue and the combine dominate
constexpr unsigned kFullMask = 0xffffffffu;
constexpr float kLog2e = 1.4426950408889634f;
constexpr float kLn2 = 0.6931471805599453f;

// Tilings of the same algorithm (all always built; DLM_CUDA_ATTENTION_TILING picks one):
//   wide:   64 K/V columns per tile (32 at head dim 256) and, up to 128 dims, the warp's Q fragments
//           held in registers: fewest shared-memory reads, but 204 registers and 85 KB of shared
//           memory per block at head dim 128, so two blocks (8 warps) per SM;
//   narrow: 32 columns per tile and Q read from shared memory, bounded to three resident blocks per
//           SM up to 128 dims (160 registers at 128): 50 % more warps per scheduler to hide the
//           softmax's dependent arithmetic, at the cost of more ldmatrix reads and rescales per
//           column;
//   narrow4: the same, bounded to four blocks (128 registers, no spills at sm_90): twice the
//           wide tiling's warps, with less room for the compiler to overlap independent work.
//           The default: on an H200 (2026-11-28) its kernel took 329 µs per layer at N = 1088
//           against wide's 399 (Nsight Compute), and the dense 8B step at N = 1088 was 2.3 %
//           faster than with wide and 0.1 % faster than with narrow (docs/benchmarks.md).
template <int HD, AttentionTiling Tiling>
struct TileShape {
    static constexpr bool kNarrow = Tiling != AttentionTiling::wide;
    static constexpr int kCols = kNarrow || HD > 128 ? 32 : 64;  // registers bound it at 256
    static constexpr bool kQInRegisters = !kNarrow && HD <= 128;
    static constexpr int kMinBlocksPerSm =
        HD > 128 ? 1 : Tiling == AttentionTiling::narrow ? 3 : Tiling == AttentionTiling::narrow4 ? 4 : 1;
    // +8 bf16 (16 bytes) per row shifts consecutive rows by 4 banks: ldmatrix reads conflict-free.
    static constexpr int kStride = HD + 8;
    static constexpr std::size_t kSmemBytes =
        static_cast<std::size_t>(kBlockRows + 4 * kCols) * kStride * sizeof(bf16);  // Q + 2x(K, V)
};

struct FlashParams : AttentionRows {
    float scale_log2;  // scale · log2(e): the softmax runs in base 2
    bf16* out;
    int out_stride;
    float* out_f32;  // optional fp32 copy of out
    float* lse;
    float* part_out;  // [splits][m][n_heads][head_dim] when split, else null
    float* part_lse;  // [splits][m][n_heads]
    int splits, tiles;
    bool vec16;  // K/V rows allow 16-byte cp.async (head_dim % 8 == 0, aligned bases)
};

// Stages columns [col0, col0 + kCols) of one K/V head into a [kCols][kStride] tile, zero-filling
// columns from col_end on (past n, or past every causal row of the block: never read, as a causal
// cache need not hold them) and dims past head_dim (zero V rows keep 0-weight columns from
// injecting NaNs).
template <int HD, AttentionTiling Tiling>
__device__ __forceinline__ void stage_tile(bf16* tile, const FlashParams& p, bool keys, int col0, int col_end,
                                           int head_off) {
    constexpr int kCols = TileShape<HD, Tiling>::kCols, kStride = TileShape<HD, Tiling>::kStride;
    if (p.vec16) {
        constexpr int kChunks = HD / 8;
#pragma unroll 4
        for (int c = threadIdx.x; c < kCols * kChunks; c += kThreads) {
            const int r = c / kChunks, d = (c % kChunks) * 8, j = col0 + r;
            bf16* dst = tile + r * kStride + d;
            if (j < col_end && d < p.head_dim)
                mma::cp_async_16(dst, (keys ? p.src.k_row(j) : p.src.v_row(j)) + head_off + d);
            else
                *reinterpret_cast<uint4*>(dst) = make_uint4(0u, 0u, 0u, 0u);
        }
    } else {
        for (int e = threadIdx.x; e < kCols * HD; e += kThreads) {
            const int r = e / HD, d = e % HD, j = col0 + r;
            tile[r * kStride + d] = j < col_end && d < p.head_dim
                                        ? (keys ? p.src.k_row(j) : p.src.v_row(j))[head_off + d]
                                        : __float2bfloat16(0.0f);
        }
    }
}

template <int HD, AttentionTiling Tiling>
__global__ void __launch_bounds__(kThreads, TileShape<HD, Tiling>::kMinBlocksPerSm)
    flash_attention_kernel(const FlashParams p) {
    using Shape = TileShape<HD, Tiling>;
    constexpr int kCols = Shape::kCols, kStride = Shape::kStride;
    constexpr int kColFrags = kCols / 8;  // n8 score fragments per tile
    constexpr int kDimFrags = HD / 8;     // n8 output fragments per head
    extern __shared__ uint4 flash_smem[];  // uint4: 16-byte alignment for ldmatrix / cp.async
    bf16* q_tile = reinterpret_cast<bf16*>(flash_smem);
    bf16* k_tiles = q_tile + kBlockRows * kStride;  // [2][kCols][kStride]
    bf16* v_tiles = k_tiles + 2 * kCols * kStride;  // [2][kCols][kStride]

    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int kv_head = blockIdx.y;
    const int head_off = kv_head * p.head_dim;
    const int rows_total = p.m * p.group;
    const int row0 = blockIdx.x * kBlockRows;
    const int split = blockIdx.z;
    const int tile_begin = split * p.tiles / p.splits, tile_end = (split + 1) * p.tiles / p.splits;

    // Causal rows: the block reads no column after the largest position among its rows, and
    // skips the tiles past it whole (a split may be left with none: it reports weight 0).
    __shared__ int block_max_pos;
    if (threadIdx.x == 0) block_max_pos = -1;
    __syncthreads();
    if (p.vis.causal && threadIdx.x < kBlockRows && row0 + static_cast<int>(threadIdx.x) < rows_total)
        atomicMax(&block_max_pos, p.row_pos[(row0 + static_cast<int>(threadIdx.x)) / p.group]);
    __syncthreads();
    const int block_col_end = p.vis.column_end(block_max_pos, p.n);  // n unless causal
    const int tile_stop = min(tile_end, (block_col_end + kCols - 1) / kCols);
    const int col_begin = tile_begin * kCols, col_end = min(tile_end * kCols, block_col_end);

    // Q rows, rounded to bf16 once (the MMA input type; the correction and probability kernels
    // round the same way, so all three see identical scores).
    for (int e = threadIdx.x; e < kBlockRows * HD; e += kThreads) {
        const int r = e / HD, d = e % HD, R = row0 + r;
        float x = 0.0f;
        if (R < rows_total && d < p.head_dim) {
            const int i = R / p.group, h = kv_head * p.group + R % p.group;
            x = p.q[static_cast<std::size_t>(i) * p.q_stride + static_cast<std::size_t>(h) * p.head_dim + d];
        }
        q_tile[r * kStride + d] = __float2bfloat16(x);
    }

    // This thread's two rows (fragment rows lane/4 and lane/4 + 8 of its warp): the columns a row
    // may not see, and the seed column it verifies and reads fresh (masked out of the tiles, added
    // back from the cache after the loop; never a hidden one).
    const int warp_row0 = row0 + warp * 16;
    const bool warp_active = warp_row0 < rows_total;
    int self_col[2];
    HiddenColumns hidden[2];
#pragma unroll
    for (int t = 0; t < 2; ++t) {
        const int R = warp_row0 + lane / 4 + 8 * t;
        self_col[t] = -1;
        if (R < rows_total) {
            const int pos = p.row_pos[R / p.group];
            hidden[t] = p.vis.for_row(pos);
            self_col[t] = p.src.self_fresh_column(pos);
            if (self_col[t] >= 0 && hidden[t].hides(self_col[t])) self_col[t] = -1;
        }
    }

    float o_acc[kDimFrags][4];
#pragma unroll
    for (int f = 0; f < kDimFrags; ++f) o_acc[f][0] = o_acc[f][1] = o_acc[f][2] = o_acc[f][3] = 0.0f;
    float row_max[2] = {-INFINITY, -INFINITY};  // base-2 scaled, identical across a quad
    float row_sum[2] = {0.0f, 0.0f};            // this thread's columns only; quad-reduced at the end

    const bf16* q_warp = q_tile + warp * 16 * kStride;
    const int num_tiles = max(tile_stop - tile_begin, 0);

    // Commit groups, in order: K0, V0, then per iteration K(t+1), V(t+1) (empty at the end), so
    // "wait until one group is pending" always means "the tile needed next has landed".
    stage_tile<HD, Tiling>(k_tiles, p, true, col_begin, block_col_end, head_off);
    mma::cp_async_commit();
    stage_tile<HD, Tiling>(v_tiles, p, false, col_begin, block_col_end, head_off);
    mma::cp_async_commit();

    // In the wide tiling up to 128 dims the warp's Q fragments sit in registers (32 of them) and
    // are read from shared memory once instead of once per tile; at 256 they would crowd out the
    // accumulators.
    constexpr bool kQInRegisters = Shape::kQInRegisters;
    constexpr int kQFrags = kQInRegisters ? HD / 16 : 1;
    uint32_t q_frag[kQFrags][4];
    __syncthreads();  // the Q tile is complete
    if (kQInRegisters && warp_active) {
#pragma unroll
        for (int kk = 0; kk < kQFrags; ++kk)
            mma::ldmatrix_x4(q_frag[kk], q_warp + (lane % 16) * kStride + kk * 16 + (lane / 16) * 8);
    }

    for (int t = 0; t < num_tiles; ++t) {
        const int buf = t & 1;
        const int col0 = (tile_begin + t) * kCols;
        const bf16* k_tile = k_tiles + buf * kCols * kStride;
        const bf16* v_tile = v_tiles + buf * kCols * kStride;

        mma::cp_async_wait<1>();  // K(t) landed
        __syncthreads();          // ... for every thread; and everyone is done with tile t-1

        float s_acc[kColFrags][4];
#pragma unroll
        for (int f = 0; f < kColFrags; ++f) s_acc[f][0] = s_acc[f][1] = s_acc[f][2] = s_acc[f][3] = 0.0f;
        if (warp_active) {
#pragma unroll
            for (int kk = 0; kk < HD / 16; ++kk) {
                uint32_t a_smem[4];
                if constexpr (!kQInRegisters)
                    mma::ldmatrix_x4(a_smem, q_warp + (lane % 16) * kStride + kk * 16 + (lane / 16) * 8);
                const uint32_t(&a)[4] = kQInRegisters ? q_frag[kQInRegisters ? kk : 0] : a_smem;
#pragma unroll
                for (int f = 0; f < kColFrags; f += 2) {
                    uint32_t b[4];  // columns f*8.. and f*8+8.., dims kk*16 .. +8 and +8 .. +16
                    mma::ldmatrix_x4(b, k_tile + (f * 8 + lane % 8 + 8 * (lane / 16)) * kStride + kk * 16 +
                                            8 * ((lane / 8) % 2));
                    mma::mma_bf16_16x8x16(s_acc[f], a, b[0], b[1]);
                    mma::mma_bf16_16x8x16(s_acc[f + 1], a, b[2], b[3]);
                }
            }
        }

        if (t + 1 < num_tiles)
            stage_tile<HD, Tiling>(k_tiles + (buf ^ 1) * kCols * kStride, p, true, col0 + kCols, block_col_end, head_off);
        mma::cp_async_commit();

        if (warp_active) {
            // Most tiles hide no column from any row of the warp (no canvas end, own column,
            // causal limit or shadow block inside them): those skip the per-score mask, which
            // otherwise costs more instructions than the tile's MMAs (the H200 profile found the
            // kernel issue-bound at 12.5 % occupancy).
            const int tile_end_col = col0 + kCols;
            bool row_masked = tile_end_col > block_col_end;
#pragma unroll
            for (int t2 = 0; t2 < 2; ++t2)
                row_masked = row_masked || (self_col[t2] >= col0 && self_col[t2] < tile_end_col) ||
                             hidden[t2].hides_any(col0, tile_end_col);
            const bool mask_tile = __any_sync(kFullMask, row_masked);
            // Online softmax: mask, new running max, rescale what was accumulated, exponentiate. A
            // row with every column of the tile hidden keeps its max (or, with nothing seen yet,
            // gets weights exp2(-inf) = 0 against base 0), so no NaN can arise.
#pragma unroll
            for (int t2 = 0; t2 < 2; ++t2) {
                float tile_max = -INFINITY;
#pragma unroll
                for (int f = 0; f < kColFrags; ++f) {
#pragma unroll
                    for (int e = 0; e < 2; ++e) {
                        float s = s_acc[f][2 * t2 + e] * p.scale_log2;
                        if (mask_tile) {
                            const int col = col0 + f * 8 + (lane % 4) * 2 + e;
                            if (col >= block_col_end || col == self_col[t2] || hidden[t2].hides(col)) s = -INFINITY;
                        }
                        s_acc[f][2 * t2 + e] = s;
                        tile_max = fmaxf(tile_max, s);
                    }
                }
                tile_max = fmaxf(tile_max, __shfl_xor_sync(kFullMask, tile_max, 1));
                tile_max = fmaxf(tile_max, __shfl_xor_sync(kFullMask, tile_max, 2));
                const float new_max = fmaxf(row_max[t2], tile_max);
                const float base = new_max == -INFINITY ? 0.0f : new_max;  // nothing visible yet: all weights 0
                const float rescale = exp2f(row_max[t2] - base);
                row_max[t2] = new_max;
                float sum = 0.0f;
#pragma unroll
                for (int f = 0; f < kColFrags; ++f) {
#pragma unroll
                    for (int e = 0; e < 2; ++e) {
                        const float w = exp2f(s_acc[f][2 * t2 + e] - base);
                        s_acc[f][2 * t2 + e] = w;
                        sum += w;
                    }
                }
                row_sum[t2] = row_sum[t2] * rescale + sum;
                // A row whose max did not grow has rescale exactly 1 (most tiles after the first
                // few): the warp skips the accumulators' multiplications unless one of its rows grew.
                if (__any_sync(kFullMask, rescale != 1.0f)) {
#pragma unroll
                    for (int f = 0; f < kDimFrags; ++f) {
                        o_acc[f][2 * t2] *= rescale;
                        o_acc[f][2 * t2 + 1] *= rescale;
                    }
                }
            }
        }

        mma::cp_async_wait<1>();  // V(t) landed (K(t+1) may still be in flight)
        __syncthreads();

        if (warp_active) {
#pragma unroll
            for (int kk = 0; kk < kCols / 16; ++kk) {
                // The score accumulators of column fragments 2kk, 2kk+1 are exactly the A
                // fragment of P for this k-step.
                uint32_t a[4];
                a[0] = mma::pack_bf16x2(s_acc[2 * kk][0], s_acc[2 * kk][1]);
                a[1] = mma::pack_bf16x2(s_acc[2 * kk][2], s_acc[2 * kk][3]);
                a[2] = mma::pack_bf16x2(s_acc[2 * kk + 1][0], s_acc[2 * kk + 1][1]);
                a[3] = mma::pack_bf16x2(s_acc[2 * kk + 1][2], s_acc[2 * kk + 1][3]);
#pragma unroll
                for (int f = 0; f < kDimFrags; f += 2) {
                    uint32_t b[4];  // columns kk*16 .. +8 and +8 .. +16, dims f*8.. and f*8+8..
                    mma::ldmatrix_x4_trans(b, v_tile + (kk * 16 + lane % 8 + 8 * ((lane / 8) % 2)) * kStride + f * 8 +
                                                  8 * (lane / 16));
                    mma::mma_bf16_16x8x16(o_acc[f], a, b[0], b[1]);
                    mma::mma_bf16_16x8x16(o_acc[f + 1], a, b[2], b[3]);
                }
            }
        }

        if (t + 1 < num_tiles)
            stage_tile<HD, Tiling>(v_tiles + (buf ^ 1) * kCols * kStride, p, false, col0 + kCols, block_col_end, head_off);
        mma::cp_async_commit();
    }
    mma::cp_async_wait<0>();

    // The seed column a self-seeing row verifies, from the cache, folded into the running
    // softmax — done by the split whose column range holds it.
    bool owns_self[2];
#pragma unroll
    for (int t2 = 0; t2 < 2; ++t2) owns_self[t2] = self_col[t2] >= col_begin && self_col[t2] < col_end;
    if (warp_active && __any_sync(kFullMask, owns_self[0] || owns_self[1])) {
#pragma unroll
        for (int t2 = 0; t2 < 2; ++t2) {
            const bf16* q_row = q_warp + (lane / 4 + 8 * t2) * kStride;
            float dot = 0.0f;
            if (owns_self[t2]) {
                const bf16* k = p.src.k_fresh(self_col[t2]) + head_off;
#pragma unroll
                for (int f = 0; f < kDimFrags; ++f) {
                    const int d = f * 8 + (lane % 4) * 2;
                    if (d < p.head_dim)
                        dot += __bfloat162float(q_row[d]) * __bfloat162float(k[d]) +
                               __bfloat162float(q_row[d + 1]) * __bfloat162float(k[d + 1]);
                }
            }
            dot += __shfl_xor_sync(kFullMask, dot, 1);  // the quad shares the row
            dot += __shfl_xor_sync(kFullMask, dot, 2);
            if (owns_self[t2]) {
                const float s = dot * p.scale_log2;
                const float new_max = fmaxf(row_max[t2], s);
                const float rescale = exp2f(row_max[t2] - new_max);
                const float w = exp2f(s - new_max);
                row_max[t2] = new_max;
                row_sum[t2] = row_sum[t2] * rescale + (lane % 4 == 0 ? w : 0.0f);  // counted once per quad
                const bf16* v = p.src.v_fresh(self_col[t2]) + head_off;
#pragma unroll
                for (int f = 0; f < kDimFrags; ++f) {
                    const int d = f * 8 + (lane % 4) * 2;
                    const float v0 = d < p.head_dim ? __bfloat162float(v[d]) : 0.0f;
                    const float v1 = d < p.head_dim ? __bfloat162float(v[d + 1]) : 0.0f;
                    o_acc[f][2 * t2] = o_acc[f][2 * t2] * rescale + w * v0;
                    o_acc[f][2 * t2 + 1] = o_acc[f][2 * t2 + 1] * rescale + w * v1;
                }
            }
        }
    }

    if (!warp_active) return;
#pragma unroll
    for (int t2 = 0; t2 < 2; ++t2) {
        float sum = row_sum[t2];
        sum += __shfl_xor_sync(kFullMask, sum, 1);
        sum += __shfl_xor_sync(kFullMask, sum, 2);
        const int R = warp_row0 + lane / 4 + 8 * t2;
        if (R >= rows_total) continue;
        const int i = R / p.group, h = blockIdx.y * p.group + R % p.group;
        const float inv = sum > 0.0f ? 1.0f / sum : 0.0f;
        const float lse = sum > 0.0f ? (row_max[t2] + log2f(sum)) * kLn2 : -INFINITY;
        const std::size_t head_row = static_cast<std::size_t>(i) * p.n_heads + h;
        if (p.splits == 1) {
            const std::size_t at = static_cast<std::size_t>(i) * p.out_stride + static_cast<std::size_t>(h) * p.head_dim;
            bf16* o = p.out + at;
            float* o32 = p.out_f32 ? p.out_f32 + at : nullptr;
#pragma unroll
            for (int f = 0; f < kDimFrags; ++f) {
                const int d = f * 8 + (lane % 4) * 2;
                if (d < p.head_dim) {
                    const float x0 = o_acc[f][2 * t2] * inv, x1 = o_acc[f][2 * t2 + 1] * inv;
                    o[d] = __float2bfloat16(x0);
                    o[d + 1] = __float2bfloat16(x1);
                    if (o32) {
                        o32[d] = x0;
                        o32[d + 1] = x1;
                    }
                }
            }
            if (p.lse && lane % 4 == 0) p.lse[head_row] = lse;
        } else {
            const std::size_t part_row = static_cast<std::size_t>(split) * p.m * p.n_heads + head_row;
            float* o = p.part_out + part_row * p.head_dim;
#pragma unroll
            for (int f = 0; f < kDimFrags; ++f) {
                const int d = f * 8 + (lane % 4) * 2;
                if (d < p.head_dim) {
                    o[d] = o_acc[f][2 * t2] * inv;
                    o[d + 1] = o_acc[f][2 * t2 + 1] * inv;
                }
            }
            if (lane % 4 == 0) p.part_lse[part_row] = lse;
        }
    }
}

// Merges the column splits of each (row, head): out = Σ_s e^{lse_s - lse} · out_s with
// lse = log Σ_s e^{lse_s}. One warp per (row, head).
__global__ void __launch_bounds__(128) combine_splits_kernel(const float* __restrict__ part_out,
                                                             const float* __restrict__ part_lse, int splits, int m,
                                                             int n_heads, int head_dim, bf16* __restrict__ out,
                                                             int out_stride, float* __restrict__ out_f32,
                                                             float* __restrict__ lse) {
    const int pair = blockIdx.x * 4 + threadIdx.x / 32, lane = threadIdx.x % 32;
    if (pair >= m * n_heads) return;
    const int i = pair / n_heads, h = pair % n_heads;
    const std::size_t split_rows = static_cast<std::size_t>(m) * n_heads;
    float max_lse = -INFINITY;
    for (int s = 0; s < splits; ++s) max_lse = fmaxf(max_lse, part_lse[s * split_rows + pair]);
    const float base = max_lse == -INFINITY ? 0.0f : max_lse;
    float total = 0.0f;
    for (int s = 0; s < splits; ++s) total += expf(part_lse[s * split_rows + pair] - base);
    const float inv = total > 0.0f ? 1.0f / total : 0.0f;
    const std::size_t at = static_cast<std::size_t>(i) * out_stride + static_cast<std::size_t>(h) * head_dim;
    bf16* o = out + at;
    for (int d = lane; d < head_dim; d += 32) {
        float acc = 0.0f;
        for (int s = 0; s < splits; ++s)
            acc += expf(part_lse[s * split_rows + pair] - base) * part_out[(s * split_rows + pair) * head_dim + d];
        o[d] = __float2bfloat16(acc * inv);
        if (out_f32) out_f32[at + d] = acc * inv;
    }
    if (lse && lane == 0) lse[pair] = total > 0.0f ? base + logf(total) : -INFINITY;
}

int padded_head_dim(int head_dim) { return head_dim <= 64 ? 64 : head_dim <= 128 ? 128 : 256; }

template <int HD>
using HeadDim = std::integral_constant<int, HD>;
template <AttentionTiling T>
using TilingTag = std::integral_constant<AttentionTiling, T>;

// The one place a runtime (padded head dim, tiling) becomes the kernel's template arguments:
// calls f(HeadDim<HD>{}, TilingTag<T>{}).
template <typename F>
void with_kernel(int hd_pad, AttentionTiling tiling, F&& f) {
    auto with_hd = [&](auto tiling_tag) {
        switch (hd_pad) {
            case 64: f(HeadDim<64>{}, tiling_tag); break;
            case 128: f(HeadDim<128>{}, tiling_tag); break;
            default: f(HeadDim<256>{}, tiling_tag); break;
        }
    };
    switch (tiling) {
        case AttentionTiling::narrow: with_hd(TilingTag<AttentionTiling::narrow>{}); break;
        case AttentionTiling::narrow4: with_hd(TilingTag<AttentionTiling::narrow4>{}); break;
        default: with_hd(TilingTag<AttentionTiling::wide>{}); break;
    }
}

template <int HD, AttentionTiling Tiling>
int resident_blocks_per_sm() {
    // Fixed per kernel and architecture: asked once.
    static const int blocks = [] {
        using Shape = TileShape<HD, Tiling>;
        check(cudaFuncSetAttribute(flash_attention_kernel<HD, Tiling>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   static_cast<int>(Shape::kSmemBytes)),
              "attention: shared-memory opt-in");
        int b = 0;
        check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&b, flash_attention_kernel<HD, Tiling>, kThreads,
                                                            Shape::kSmemBytes),
              "attention: occupancy query");
        return std::max(b, 1);
    }();
    return blocks;
}

struct LaunchPlan {
    AttentionTiling tiling = AttentionTiling::wide;
    int hd_pad = 0;
    int row_tiles = 0;
    int tiles = 0;   // column tiles
    int splits = 1;  // column splits (each a contiguous run of tiles)
    std::size_t floats_per_split = 0;
};

// Splits the columns only when the (row tile, K/V head) blocks fill at most half the device's
// resident slots: as many splits as still fit in one wave, each at least kMinTilesPerSplit tiles,
// within the workspace. Rounding up instead starts a second, mostly idle wave: on an H200 with
// narrow4's 528 slots, 64 blocks split 9 ways made 576 blocks, and that SureLock-shaped step
// (N = 576, 25 % of the rows) took 8.6 ms against 7.6 ms in the run before with wide's 264 slots
// and 4 splits in one wave (2026-11-28; this rule is measured on the next GPU run).
LaunchPlan plan_launch(const AttentionArgs& a, std::size_t workspace_floats) {
    LaunchPlan plan;
    plan.tiling = attention_tiling();
    plan.hd_pad = padded_head_dim(a.head_dim);
    int cols = 0, resident = 0;
    with_kernel(plan.hd_pad, plan.tiling, [&](auto hd, auto tiling) {
        cols = TileShape<hd.value, tiling.value>::kCols;
        resident = resident_blocks_per_sm<hd.value, tiling.value>();
    });
    const int group = a.n_heads / a.n_kv_heads;
    plan.row_tiles = static_cast<int>((static_cast<long long>(a.m) * group + kBlockRows - 1) / kBlockRows);
    plan.tiles = (a.n + cols - 1) / cols;
    plan.floats_per_split = static_cast<std::size_t>(a.m) * a.n_heads * (a.head_dim + 1);

    int device = 0, sms = 0;
    check(cudaGetDevice(&device), "attention: cudaGetDevice");
    check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "attention: SM count");
    const long long slots = static_cast<long long>(sms) * resident;
    const long long blocks = static_cast<long long>(plan.row_tiles) * a.n_kv_heads;
    if (blocks <= 0 || blocks >= slots) return plan;
    long long splits = slots / blocks;
    splits = std::min<long long>({splits, plan.tiles / kMinTilesPerSplit, kMaxSplits});
    if (plan.floats_per_split > 0)
        splits = std::min<long long>(
            splits, static_cast<long long>(std::min<std::size_t>(workspace_floats / plan.floats_per_split, kMaxSplits)));
    plan.splits = splits >= 2 ? static_cast<int>(splits) : 1;
    return plan;
}

template <int HD, AttentionTiling Tiling>
void run_flash(const FlashParams& p, const LaunchPlan& plan, int n_kv_heads, cudaStream_t stream) {
    constexpr std::size_t smem = TileShape<HD, Tiling>::kSmemBytes;
    // Set on every launch: the opt-in is per device, and the app may switch devices.
    check(cudaFuncSetAttribute(flash_attention_kernel<HD, Tiling>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                               static_cast<int>(smem)),
          "attention: shared-memory opt-in");
    const dim3 grid(static_cast<unsigned>(plan.row_tiles), static_cast<unsigned>(n_kv_heads),
                    static_cast<unsigned>(plan.splits));
    flash_attention_kernel<HD, Tiling><<<grid, kThreads, smem, stream>>>(p);
    check_launch("attention");
}

bool aligned16(const void* ptr) { return reinterpret_cast<std::uintptr_t>(ptr) % 16 == 0; }

}  // namespace

namespace {
struct NamedTiling {
    AttentionTiling tiling;
    const char* name;
};
constexpr NamedTiling kTilingNames[] = {
    {AttentionTiling::wide, "wide"}, {AttentionTiling::narrow, "narrow"}, {AttentionTiling::narrow4, "narrow4"}};
}  // namespace

AttentionTiling attention_tiling() {
    static const AttentionTiling tiling = [] {
        const char* value = std::getenv("DLM_CUDA_ATTENTION_TILING");
        if (!value || !*value) return AttentionTiling::narrow4;
        std::string known;
        for (const NamedTiling& t : kTilingNames) {
            if (std::string_view(value) == t.name) return t.tiling;
            known += (known.empty() ? "'" : ", '") + std::string(t.name) + "'";
        }
        throw Error("DLM_CUDA_ATTENTION_TILING must be one of " + known + ", not '" + value + "'");
    }();
    return tiling;
}

const char* attention_tiling_name(AttentionTiling tiling) {
    for (const NamedTiling& t : kTilingNames)
        if (t.tiling == tiling) return t.name;
    return "unknown";
}

std::size_t attention_split_workspace_floats(const AttentionArgs& args) {
    validate_attention_shapes(args, "attention");
    if (args.m == 0) return 0;
    const LaunchPlan plan = plan_launch(args, static_cast<std::size_t>(-1));
    return plan.splits > 1 ? plan.floats_per_split * plan.splits : 0;
}

void launch_attention(const AttentionArgs& args, cudaStream_t stream) {
    validate_attention_args(args, "attention");
    if (args.m == 0) return;
    if (!args.out || args.out_stride < args.n_heads * args.head_dim)
        throw Error("attention: no output buffer, or its row stride " + std::to_string(args.out_stride) +
                    " is shorter than " + std::to_string(args.n_heads) + " heads of " + std::to_string(args.head_dim));
    const LaunchPlan plan = plan_launch(args, args.split_workspace ? args.split_workspace_floats : 0);

    FlashParams p{};
    static_cast<AttentionRows&>(p) = attention_rows(args);
    p.scale_log2 = args.scale * kLog2e;
    p.out = args.out;
    p.out_stride = args.out_stride;
    p.out_f32 = args.out_f32;
    p.lse = args.lse;
    p.splits = plan.splits;
    p.tiles = plan.tiles;
    if (plan.splits > 1) {
        p.part_out = args.split_workspace;
        p.part_lse = args.split_workspace + static_cast<std::size_t>(plan.splits) * args.m * args.n_heads * args.head_dim;
    }
    p.vec16 = args.head_dim % 8 == 0 && aligned16(args.k_cache) && aligned16(args.v_cache) &&
              (!args.overridden || (aligned16(args.k_override) && aligned16(args.v_override)));

    with_kernel(plan.hd_pad, plan.tiling,
                [&](auto hd, auto tiling) { run_flash<hd.value, tiling.value>(p, plan, args.n_kv_heads, stream); });
    if (plan.splits > 1) {
        const int pairs = args.m * args.n_heads;
        combine_splits_kernel<<<(pairs + 3) / 4, 128, 0, stream>>>(p.part_out, p.part_lse, plan.splits, args.m,
                                                                   args.n_heads, args.head_dim, args.out,
                                                                   args.out_stride, args.out_f32, args.lse);
        check_launch("attention split combine");
    }
}

}  // namespace dlm::cuda
