#pragma once
// One fused pass per head row over the vocabulary (the CPU reference is
// compute/row_stats.cpp compute_row_stats): suppressed ids to -inf, classifier-free guidance,
// softmax, max p, runner-up, entropy, log-sum-exp, KL to the stored previous posterior (and the
// new posterior stored in its place), the raw p of a query token, the display top-k, and the
// sampled token — argmax at T = 0, Gumbel-max over logits / T with the engine's Philox uniforms
// (draw = token id) at T > 0. Only these few numbers per row come back to the host; no
// rows x vocabulary array is copied. Top-p < 1 or top-k > 0 is not handled here: the backend
// then falls back to the CPU reference for those rows.
#include <cuda_runtime.h>

#include <cstdint>

namespace dlm::cuda {

inline constexpr int kMaxDisplayTopK = 16;

// Error codes a row can report (the host turns them into dlm::Error with the position).
enum RowStatsError : int32_t {
    kRowStatsOk = 0,
    kRowStatsNonFinite = 1,     // a logit is NaN or +inf
    kRowStatsAllSuppressed = 2  // every token is -inf
};

struct DeviceRowStats {
    int32_t argmax;
    int32_t sampled;
    int32_t error;
    float p_max, p_second, entropy, lse;
    float kl_prev;  // NaN when the row had no previous posterior
    float query_p;  // NaN when no query token
    float sampled_p_raw, sampled_p_proc, p_max_proc, p_second_proc, entropy_proc;
    int32_t top_ids[kMaxDisplayTopK];  // display_k most probable under the raw posterior, ties by lower id
    float top_p[kMaxDisplayTopK];
};

struct RowStatsArgs {
    int rows = 0;
    int vocab = 0;
    const float* logits = nullptr;        // fp32 [.][vocab]
    const int32_t* logits_row = nullptr;  // device [rows]: the logits row each stats row reads
    // Classifier-free guidance: l = u + (cfg_scale + 1)(c - u) with u = uncond_logits[uncond_row[r]].
    const float* uncond_logits = nullptr;  // null: no CFG
    const int32_t* uncond_row = nullptr;
    double cfg_scale = 0.0;
    const int32_t* suppress_ids = nullptr;  // device [n_suppress], validated on the host
    int n_suppress = 0;
    const int32_t* positions = nullptr;     // device [rows]: canvas positions (posterior slot, RNG)
    const int32_t* query_token = nullptr;   // device [rows] (-1: none) or null
    float* posteriors = nullptr;            // device [slots][vocab] store, or null (no KL, no update)
    const uint8_t* has_prev = nullptr;      // device [rows]: 1 if posteriors[positions[r]] is valid
    bool update_posteriors = false;         // write p_t into posteriors[positions[r]] (after the KL)
    double temperature = 0.0;               // 0: greedy
    uint64_t rng_key = 0;                   // philox_key(seed, rng_stream::kSampling)
    int step = 0;
    int display_k = 5;                      // 0..kMaxDisplayTopK
    DeviceRowStats* out = nullptr;          // device [rows]
};

void launch_row_stats(const RowStatsArgs& args, cudaStream_t stream);

}  // namespace dlm::cuda
