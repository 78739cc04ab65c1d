// One block per stats row, two passes over the vocabulary (the CPU reference is
// compute/row_stats.cpp compute_row_stats; every formula below mirrors it):
//   pass 1: max / argmax / runner-up logit, online sums of exp for the raw (T = 1) and the tempered
//           softmax, and whether the row holds NaN or +inf;
//   pass 2: p, entropy, KL to the previous posterior (then the new posterior over the same slot),
//           the display top-k candidates, the tempered entropy and the Gumbel-max sample.
// Sums are in double (a 150k-way entropy in fp32 would be dominated by rounding). Each thread
// walks its ids in ascending order and the block combines threads in a fixed tree, so the result
// does not depend on scheduling; every tie is broken by the lower id, as on the CPU.
#include "row_stats_kernel.cuh"

#include <math_constants.h>

#include <climits>
#include <cmath>
#include <cstring>
#include <string>

#include "cuda_check.h"
#include "philox.cuh"
#include "util/error.h"

namespace dlm::cuda {

namespace {

constexpr int kThreads = 512;
constexpr int kWarps = kThreads / 32;
static_assert(kWarps <= 32, "the second reduction level runs in one warp");
// A previous posterior that underflowed to 0 counts as 1e-30 so the KL stays finite (row_stats.cpp).
constexpr double kPrevFloor = 1e-30;
// Top-k list slot that holds nothing: below every probability, after every id.
constexpr double kEmptyP = -1.0;
constexpr int32_t kEmptyId = INT_MAX;

// Shuffles any trivially copyable value word by word.
template <typename T>
__device__ __forceinline__ T shfl_down(const T& v, int offset) {
    static_assert(sizeof(T) % 4 == 0, "shuffled values are whole 32-bit words");
    constexpr int kWords = sizeof(T) / 4;
    uint32_t w[kWords];
    memcpy(w, &v, sizeof(T));
#pragma unroll
    for (int i = 0; i < kWords; ++i) w[i] = __shfl_down_sync(0xffffffffu, w[i], offset);
    T out;
    memcpy(&out, w, sizeof(T));
    return out;
}

// Block-wide reduction in a fixed tree (lanes within a warp, then the warps' results in warp
// order); every thread receives the result. `slots` is shared memory for kWarps + 1 values and may
// be reused as soon as this returns. All threads of the block must call it.
template <typename T, typename Combine>
__device__ T block_reduce(T v, Combine combine, T* slots) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) v = combine(v, shfl_down(v, off));
    if (lane == 0) slots[warp] = v;
    __syncthreads();
    if (warp == 0) {
        // Lanes >= kWarps load a valid value that never reaches lane 0 (offsets stay below kWarps).
        v = slots[lane % kWarps];
#pragma unroll
        for (int off = kWarps / 2; off > 0; off >>= 1) v = combine(v, shfl_down(v, off));
        if (lane == 0) slots[kWarps] = v;
    }
    __syncthreads();
    const T result = slots[kWarps];
    __syncthreads();
    return result;
}

// Strict total order of (p, id): larger p first, then the lower id (ByValueDesc in row_stats.cpp).
__device__ __forceinline__ bool ranks_before(double pa, int32_t ia, double pb, int32_t ib) {
    return pa > pb || (pa == pb && ia < ib);
}

// What one row reads: the logits (after guidance) with the suppressed ids forced to -inf.
struct RowInput {
    const float* cond = nullptr;
    const float* uncond = nullptr;     // null: no guidance
    double cfg_mult = 1.0;             // cfg_scale + 1
    const uint32_t* suppressed = nullptr;  // bitmap over the vocabulary, null: none

    __device__ __forceinline__ float logit(int i) const {
        float x = cond[i];
        if (uncond) {
            // u + (s + 1)(c - u) in double, rounded to float, as the CPU backend does; the
            // intrinsics keep nvcc from fusing it into an fma, which would round differently.
            const double u = uncond[i];
            x = static_cast<float>(__dadd_rn(u, __dmul_rn(cfg_mult, __dsub_rn(static_cast<double>(x), u))));
        }
        if (suppressed && ((suppressed[i >> 5] >> (i & 31)) & 1u)) x = -CUDART_INF_F;
        return x;
    }
};

// Pass 1 summary of a set of ids.
struct Summary {
    double max;        // largest logit (-inf: no finite one)
    double second;     // largest logit once one instance of `max` is removed
    double sum_raw;    // sum of exp(l - max)
    double sum_temp;   // sum of exp(l / T - max / T) (T > 0 only)
    int32_t argmax;    // lowest id holding `max`, -1: none
    int32_t bad;       // 1 if a NaN or +inf logit was seen
};

// exp(m - to) * s, with an empty part (m = -inf) contributing nothing.
__device__ __forceinline__ double rescale(double s, double m, double to) {
    return m == -CUDART_INF ? 0.0 : s * exp(m - to);
}

__device__ Summary combine_summaries(const Summary& a, const Summary& b, double temperature) {
    Summary r;
    r.max = fmax(a.max, b.max);
    if (a.max > b.max) r.argmax = a.argmax;
    else if (b.max > a.max) r.argmax = b.argmax;
    else r.argmax = (a.argmax < 0) ? b.argmax : (b.argmax < 0 ? a.argmax : min(a.argmax, b.argmax));
    r.second = fmax(fmin(a.max, b.max), fmax(a.second, b.second));
    r.sum_raw = rescale(a.sum_raw, a.max, r.max) + rescale(b.sum_raw, b.max, r.max);
    r.sum_temp = 0.0;
    if (temperature > 0.0 && r.max != -CUDART_INF)
        r.sum_temp = rescale(a.sum_temp, a.max / temperature, r.max / temperature) +
                     rescale(b.sum_temp, b.max / temperature, r.max / temperature);
    r.bad = a.bad | b.bad;
    return r;
}

// Pass 2 totals of a set of ids.
struct Totals {
    double entropy;       // -sum p log p, raw posterior
    double kl;            // sum p (log p - log prev)
    double entropy_temp;  // -sum q log q, tempered distribution
    double best_score;    // Gumbel-max score of `best`
    int32_t best;         // kEmptyId: none
    int32_t pad;
};

__device__ Totals combine_totals(const Totals& a, const Totals& b) {
    Totals r;
    r.entropy = a.entropy + b.entropy;
    r.kl = a.kl + b.kl;
    r.entropy_temp = a.entropy_temp + b.entropy_temp;
    const bool take_a = ranks_before(a.best_score, a.best, b.best_score, b.best);
    r.best_score = take_a ? a.best_score : b.best_score;
    r.best = take_a ? a.best : b.best;
    r.pad = 0;
    return r;
}

// A thread's K best (p, id) so far, sorted, in registers (the loops are unrolled so every index is
// a compile-time constant).
template <int K>
struct TopList {
    double p[K];
    int32_t id[K];

    __device__ __forceinline__ void clear() {
#pragma unroll
        for (int j = 0; j < K; ++j) {
            p[j] = kEmptyP;
            id[j] = kEmptyId;
        }
    }
    __device__ __forceinline__ void offer(double v, int32_t i) {
        if (!ranks_before(v, i, p[K - 1], id[K - 1])) return;
        p[K - 1] = v;
        id[K - 1] = i;
#pragma unroll
        for (int j = K - 1; j > 0; --j) {
            if (ranks_before(p[j], id[j], p[j - 1], id[j - 1])) {
                const double tp = p[j];
                const int32_t ti = id[j];
                p[j] = p[j - 1];
                id[j] = id[j - 1];
                p[j - 1] = tp;
                id[j - 1] = ti;
            }
        }
    }
    __device__ __forceinline__ void pop_front() {
#pragma unroll
        for (int j = 0; j + 1 < K; ++j) {
            p[j] = p[j + 1];
            id[j] = id[j + 1];
        }
        p[K - 1] = kEmptyP;
        id[K - 1] = kEmptyId;
    }
};

// Best (p, id) across the warp by a butterfly, so every lane holds the winner.
__device__ __forceinline__ void warp_best(double& p, int32_t& id) {
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) {
        const double op = __shfl_xor_sync(0xffffffffu, p, off);
        const int32_t oi = __shfl_xor_sync(0xffffffffu, id, off);
        if (ranks_before(op, oi, p, id)) {
            p = op;
            id = oi;
        }
    }
}

// Merges the threads' lists into the row's `count` best: each warp picks its `count` best from its
// lanes' lists, then warp 0 picks the block's from the warps' lists. Writes ids and p (as float).
template <int K>
__device__ void merge_top(TopList<K>& mine, int count, int32_t* out_ids, float* out_p) {
    __shared__ double warp_p[kWarps][K];
    __shared__ int32_t warp_id[kWarps][K];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (int r = 0; r < count; ++r) {
        double p = mine.p[0];
        int32_t id = mine.id[0];
        warp_best(p, id);
        // Real ids are unique, so one lane pops; lanes whose lists are exhausted pop an empty slot.
        if (mine.id[0] == id) mine.pop_front();
        if (lane == 0) {
            warp_p[warp][r] = p;
            warp_id[warp][r] = id;
        }
    }
    __syncthreads();
    if (warp == 0) {
        int head = 0;
        for (int r = 0; r < count; ++r) {
            const bool has = lane < kWarps && head < count;
            const int32_t my_id = has ? warp_id[lane][head] : kEmptyId;
            double p = has ? warp_p[lane][head] : kEmptyP;
            int32_t id = my_id;
            warp_best(p, id);
            if (has && my_id == id) ++head;
            if (lane == 0) {
                out_ids[r] = id;
                out_p[r] = static_cast<float>(p);
            }
        }
    }
}

template <int K>
__global__ void __launch_bounds__(kThreads) row_stats_kernel(RowStatsArgs args) {
    extern __shared__ uint32_t suppressed_bits[];
    __shared__ Summary summary_slots[kWarps + 1];
    __shared__ Totals totals_slots[kWarps + 1];

    const int row = blockIdx.x;
    const int tid = threadIdx.x;
    const int V = args.vocab;
    const double T = args.temperature;

    if (args.n_suppress > 0) {
        const int words = (V + 31) / 32;
        for (int w = tid; w < words; w += kThreads) suppressed_bits[w] = 0u;
        __syncthreads();
        for (int j = tid; j < args.n_suppress; j += kThreads) {
            const int32_t id = args.suppress_ids[j];
            atomicOr(&suppressed_bits[id >> 5], 1u << (id & 31));
        }
        __syncthreads();
    }

    RowInput in;
    in.cond = args.logits + static_cast<size_t>(args.logits_row[row]) * static_cast<size_t>(V);
    if (args.uncond_logits) {
        in.uncond = args.uncond_logits + static_cast<size_t>(args.uncond_row[row]) * static_cast<size_t>(V);
        in.cfg_mult = args.cfg_scale + 1.0;
    }
    in.suppressed = args.n_suppress > 0 ? suppressed_bits : nullptr;

    // Pass 1: max, runner-up, online softmax denominators, non-finite check.
    Summary s{-CUDART_INF, -CUDART_INF, 0.0, 0.0, -1, 0};
    double max_temp = -CUDART_INF;  // s.max / T
    for (int i = tid; i < V; i += kThreads) {
        const float x = in.logit(i);
        if (isnan(x) || x == CUDART_INF_F) {
            s.bad = 1;
            continue;
        }
        if (x == -CUDART_INF_F) continue;
        const double v = x;
        if (v > s.max) {
            s.sum_raw = s.sum_raw * exp(s.max - v) + 1.0;
            if (T > 0.0) {
                const double vt = v / T;
                s.sum_temp = s.sum_temp * exp(max_temp - vt) + 1.0;
                max_temp = vt;
            }
            s.second = s.max;
            s.max = v;
            s.argmax = i;
        } else {
            s.sum_raw += exp(v - s.max);
            if (T > 0.0) s.sum_temp += exp(v / T - max_temp);
            if (v > s.second) s.second = v;
        }
    }
    s = block_reduce(s, [T](const Summary& a, const Summary& b) { return combine_summaries(a, b, T); }, summary_slots);

    DeviceRowStats* out = args.out + row;
    if (s.bad || s.argmax < 0) {  // the CPU checks NaN / +inf first, then the empty support
        if (tid == 0) {
            DeviceRowStats e{};
            e.argmax = -1;
            e.sampled = -1;
            e.error = s.bad ? kRowStatsNonFinite : kRowStatsAllSuppressed;
            e.kl_prev = CUDART_NAN_F;
            e.query_p = CUDART_NAN_F;
            for (int j = 0; j < kMaxDisplayTopK; ++j) e.top_ids[j] = -1;
            *out = e;
        }
        return;  // uniform across the block; the posterior slot is left as it was
    }
    const double lse = s.max + log(s.sum_raw);
    const double max_temp_all = T > 0.0 ? s.max / T : 0.0;
    const double lse_temp = T > 0.0 ? max_temp_all + log(s.sum_temp) : 0.0;

    const int32_t position = args.positions[row];
    float* slot = args.posteriors ? args.posteriors + static_cast<size_t>(position) * static_cast<size_t>(V) : nullptr;
    const bool has_prev = slot && args.has_prev && args.has_prev[row];
    const float* prev = has_prev ? slot : nullptr;
    float* post_out = args.update_posteriors ? slot : nullptr;
    // CounterRng takes the int position and step as uint64_t (sign-extended), so do we.
    const uint64_t rng_position = static_cast<uint64_t>(static_cast<int64_t>(position));
    const uint64_t rng_step = static_cast<uint64_t>(static_cast<int64_t>(args.step));

    // Pass 2: posterior, entropy, KL, posterior update, top-k, tempered entropy, Gumbel-max.
    Totals t{0.0, 0.0, 0.0, -CUDART_INF, kEmptyId, 0};
    TopList<(K > 0 ? K : 1)> top;
    if constexpr (K > 0) top.clear();
    for (int i = tid; i < V; i += kThreads) {
        const float x = in.logit(i);
        double p = 0.0;
        if (x != -CUDART_INF_F) {
            const double v = x;
            const double logp = v - lse;
            p = exp(logp);
            t.entropy -= p * logp;
            if (prev) {
                // Read before this thread overwrites the same element below.
                const double pv = prev[i];
                t.kl += p * (logp - log(pv < kPrevFloor ? kPrevFloor : pv));
            }
            if (T > 0.0) {
                const double z = v / T;
                const double logq = z - lse_temp;
                const double q = exp(logq);
                t.entropy_temp -= q * logq;
                const double u = philox_uniform(args.rng_key, rng_step, rng_position, static_cast<uint64_t>(i));
                const double score = z - log(-log(u));
                if (score > t.best_score) {  // ascending ids: the first of equal scores stays
                    t.best_score = score;
                    t.best = i;
                }
            }
        }
        if (post_out) post_out[i] = static_cast<float>(p);
        if constexpr (K > 0) top.offer(p, i);
    }
    t = block_reduce(t, [](const Totals& a, const Totals& b) { return combine_totals(a, b); }, totals_slots);

    __shared__ int32_t top_ids[kMaxDisplayTopK];
    __shared__ float top_p[kMaxDisplayTopK];
    const int top_count = min(args.display_k, V);
    if constexpr (K > 0) merge_top<K>(top, top_count, top_ids, top_p);
    __syncthreads();

    if (tid == 0) {
        DeviceRowStats r{};
        r.error = kRowStatsOk;
        r.argmax = s.argmax;
        r.p_max = static_cast<float>(exp(s.max - lse));
        r.p_second = s.second == -CUDART_INF ? 0.f : static_cast<float>(exp(s.second - lse));
        r.entropy = static_cast<float>(fmax(t.entropy, 0.0));
        r.lse = static_cast<float>(lse);
        r.kl_prev = has_prev ? static_cast<float>(fmax(t.kl, 0.0)) : CUDART_NAN_F;
        r.query_p = CUDART_NAN_F;
        const int32_t q = args.query_token ? args.query_token[row] : -1;
        if (q >= 0 && q < V) {
            const float xq = in.logit(q);
            r.query_p = xq == -CUDART_INF_F ? 0.f : static_cast<float>(exp(static_cast<double>(xq) - lse));
        }
        for (int j = 0; j < kMaxDisplayTopK; ++j) {
            const bool shown = j < top_count;
            r.top_ids[j] = shown ? top_ids[j] : -1;
            r.top_p[j] = shown ? top_p[j] : 0.f;
        }
        if (T == 0.0) {
            // Greedy: the processed distribution is the raw one.
            r.sampled = s.argmax;
            r.sampled_p_raw = r.p_max;
            r.sampled_p_proc = r.p_max;
            r.p_max_proc = r.p_max;
            r.p_second_proc = r.p_second;
            r.entropy_proc = r.entropy;
        } else {
            const double lb = in.logit(t.best);
            r.sampled = t.best;
            r.sampled_p_raw = static_cast<float>(exp(lb - lse));
            r.sampled_p_proc = static_cast<float>(exp(lb / T - lse_temp));
            r.p_max_proc = static_cast<float>(exp(max_temp_all - lse_temp));
            r.p_second_proc = s.second == -CUDART_INF ? 0.f : static_cast<float>(exp(s.second / T - lse_temp));
            r.entropy_proc = static_cast<float>(fmax(t.entropy_temp, 0.0));
        }
        *out = r;
    }
}

template <int K>
void launch_with_top(const RowStatsArgs& args, cudaStream_t stream) {
    const std::size_t bitmap_bytes =
        args.n_suppress > 0 ? static_cast<std::size_t>((args.vocab + 31) / 32) * sizeof(uint32_t) : 0;
    if (bitmap_bytes > 48 * 1024)
        check(cudaFuncSetAttribute(row_stats_kernel<K>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   static_cast<int>(bitmap_bytes)),
              "row_stats suppressed-id bitmap");
    row_stats_kernel<K><<<args.rows, kThreads, bitmap_bytes, stream>>>(args);
    check_launch("row_stats");
}

}  // namespace

void launch_row_stats(const RowStatsArgs& args, cudaStream_t stream) {
    if (args.rows < 0) throw Error("row statistics: negative row count " + std::to_string(args.rows));
    if (args.rows == 0) return;
    if (args.vocab <= 0) throw Error("row statistics: empty logits row (vocabulary " + std::to_string(args.vocab) + ")");
    if (!args.logits || !args.logits_row || !args.positions || !args.out)
        throw Error("row statistics: logits, their row indices, positions and the output are required");
    if (args.uncond_logits && !args.uncond_row)
        throw Error("row statistics: classifier-free guidance needs the unconditional row indices");
    if (args.n_suppress < 0 || (args.n_suppress > 0 && !args.suppress_ids))
        throw Error("row statistics: " + std::to_string(args.n_suppress) + " suppressed ids but no id list");
    if (args.display_k < 0 || args.display_k > kMaxDisplayTopK)
        throw Error("row statistics: display top-k must be in 0.." + std::to_string(kMaxDisplayTopK) + ", got " +
                    std::to_string(args.display_k));
    if (!(args.temperature >= 0.0) || !std::isfinite(args.temperature))
        throw Error("sampling temperature must be >= 0, got " + std::to_string(args.temperature));
    if (args.display_k == 0) launch_with_top<0>(args, stream);
    else if (args.display_k <= 8) launch_with_top<8>(args, stream);
    else launch_with_top<16>(args, stream);
}

}  // namespace dlm::cuda
