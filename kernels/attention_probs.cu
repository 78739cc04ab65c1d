#include "attention_probs.cuh"

#include <cstddef>
#include <string>

#include "attention_columns.cuh"
#include "cuda_check.h"

namespace dlm::cuda {

namespace {

using bf16 = __nv_bfloat16;

// Runs once per COVER step on the last layer, so plain fp32 SIMT: a block owns 16 query rows x 64
// columns and walks the K/V heads, staging one head's 64 keys (fp32, odd row stride: the 32
// columns a warp reads sit in distinct banks) and, per query head of the group, the 16 q rows
// (broadcast float4 reads). Each thread accumulates 8 rows of one column over all heads.
constexpr int kRows = 16;
constexpr int kCols = 64;
constexpr int kThreads = 128;  // kCols columns x 2 halves of kRows
constexpr int kRowsPerThread = kRows / (kThreads / kCols);

struct ProbsParams : AttentionRows {
    int n_kv_heads;
    float scale;
    const float* lse;
    float* probs;
};

__device__ __forceinline__ int round_up4(int x) { return (x + 3) & ~3; }

__global__ void __launch_bounds__(kThreads) attention_probs_kernel(const ProbsParams p) {
    extern __shared__ float4 probs_smem[];
    __shared__ int self_col[kRows];
    __shared__ int row_canvas_pos[kRows];  // -1 past the last row
    const int dims = round_up4(p.head_dim);  // zero-padded so the dot product steps by 4
    const int k_stride = dims + 1;
    float* q_tile = reinterpret_cast<float*>(probs_smem);  // [kRows][dims]
    float* k_tile = q_tile + kRows * dims;                  // [kCols][dims + 1]

    const int col = threadIdx.x % kCols, half = threadIdx.x / kCols;
    const int i0 = blockIdx.x * kRows, j0 = blockIdx.y * kCols, j = j0 + col;
    if (threadIdx.x < kRows) {
        const int i = i0 + threadIdx.x;
        row_canvas_pos[threadIdx.x] = i < p.m ? p.row_pos[i] : -1;
        self_col[threadIdx.x] = i < p.m ? p.src.self_fresh_column(p.row_pos[i]) : -1;
    }
    __syncthreads();
    // Causal rows read no column after the block's largest position: a block of columns wholly
    // past it only writes zeros (its keys need not even be cached).
    int max_pos = -1;
    for (int r = 0; r < kRows; ++r) max_pos = max(max_pos, row_canvas_pos[r]);
    const int col_end = p.vis.column_end(max_pos, p.n);
    if (j0 >= col_end) {
        if (j < p.n)
#pragma unroll
            for (int r = 0; r < kRowsPerThread; ++r) {
                const int i = i0 + half * kRowsPerThread + r;
                if (i < p.m) p.probs[static_cast<std::size_t>(i) * p.n + j] = 0.0f;
            }
        return;
    }

    float acc[kRowsPerThread];
#pragma unroll
    for (int r = 0; r < kRowsPerThread; ++r) acc[r] = 0.0f;

    for (int g = 0; g < p.n_kv_heads; ++g) {
        __syncthreads();  // everyone is done with the previous head's tiles
        const int head_off = g * p.head_dim;
        for (int e = threadIdx.x; e < kCols * dims; e += kThreads) {
            const int c = e / dims, d = e % dims, jj = j0 + c;
            k_tile[c * k_stride + d] =
                jj < col_end && d < p.head_dim ? __bfloat162float(p.src.k_row(jj)[head_off + d]) : 0.0f;
        }
        for (int hh = 0; hh < p.group; ++hh) {
            const int h = g * p.group + hh;
            if (hh > 0) __syncthreads();  // everyone is done with the previous head's q rows
            for (int e = threadIdx.x; e < kRows * dims; e += kThreads) {
                const int r = e / dims, d = e % dims, i = i0 + r;
                // Rounded to bf16 as the attention kernel rounds q, so the probabilities match its lse.
                q_tile[r * dims + d] =
                    i < p.m && d < p.head_dim
                        ? __bfloat162float(__float2bfloat16(
                              p.q[static_cast<std::size_t>(i) * p.q_stride + static_cast<std::size_t>(h) * p.head_dim + d]))
                        : 0.0f;
            }
            __syncthreads();

            float dot[kRowsPerThread];
#pragma unroll
            for (int r = 0; r < kRowsPerThread; ++r) dot[r] = 0.0f;
            const float* k = k_tile + col * k_stride;
            const float* q_rows = q_tile + half * kRowsPerThread * dims;
            for (int d = 0; d < dims; d += 4) {
                const float k0 = k[d], k1 = k[d + 1], k2 = k[d + 2], k3 = k[d + 3];
#pragma unroll
                for (int r = 0; r < kRowsPerThread; ++r) {
                    const float4 qv = *reinterpret_cast<const float4*>(q_rows + r * dims + d);
                    dot[r] += qv.x * k0 + qv.y * k1 + qv.z * k2 + qv.w * k3;
                }
            }
            if (j >= p.n) continue;
#pragma unroll
            for (int r = 0; r < kRowsPerThread; ++r) {
                const int rr = half * kRowsPerThread + r, i = i0 + rr;
                if (i >= p.m || p.vis.hides(row_canvas_pos[rr], j)) continue;  // weight 0
                float s = dot[r];
                if (j == self_col[rr]) {  // the seed column this row verifies, seen fresh from the cache
                    const bf16* kf = p.src.k_fresh(j) + head_off;
                    s = 0.0f;
                    for (int d = 0; d < p.head_dim; ++d) s += q_rows[r * dims + d] * __bfloat162float(kf[d]);
                }
                acc[r] += expf(s * p.scale - p.lse[static_cast<std::size_t>(i) * p.n_heads + h]);
            }
        }
    }

    if (j >= p.n) return;
    const float inv_heads = 1.0f / static_cast<float>(p.n_heads);
#pragma unroll
    for (int r = 0; r < kRowsPerThread; ++r) {
        const int i = i0 + half * kRowsPerThread + r;
        if (i < p.m) p.probs[static_cast<std::size_t>(i) * p.n + j] = acc[r] * inv_heads;
    }
}

}  // namespace

void launch_attention_probs(const AttentionArgs& args, const float* lse, float* probs, cudaStream_t stream) {
    validate_attention_args(args, "attention probabilities");
    if (args.m == 0) return;
    if (!lse || !probs) throw Error("attention probabilities: missing the lse input or the probability output");

    ProbsParams p{};
    static_cast<AttentionRows&>(p) = attention_rows(args);
    p.n_kv_heads = args.n_kv_heads;
    p.scale = args.scale;
    p.lse = lse;
    p.probs = probs;

    const int dims = (args.head_dim + 3) & ~3;
    const std::size_t smem = (static_cast<std::size_t>(kRows) * dims + static_cast<std::size_t>(kCols) * (dims + 1)) * sizeof(float);
    // Past 48 KiB (head_dim > 128) the kernel must opt in; set every launch as the opt-in is per device.
    check(cudaFuncSetAttribute(attention_probs_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   static_cast<int>(smem)),
              "attention probabilities: shared-memory opt-in");
    const dim3 grid(static_cast<unsigned>((args.m + kRows - 1) / kRows), static_cast<unsigned>((args.n + kCols - 1) / kCols));
    attention_probs_kernel<<<grid, kThreads, smem, stream>>>(p);
    check_launch("attention probabilities");
}

}  // namespace dlm::cuda
