#pragma once
// What the decoder needs from one position's output distribution, computed next to the logits
// (fused per row on a GPU) so that no rows x vocabulary array has to reach the host.
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <string_view>
#include <vector>

namespace dlm {

class PosteriorStore;

struct TokenProb {
    int32_t id = -1;
    float p = 0.f;
};

// How the sampled token is drawn. temperature 0 = argmax. Otherwise the tempered softmax is
// restricted to top_p (1 = off) then top_k (0 = off), Dream's order, and sampled by Gumbel-max with a uniform
// draw in double precision from the counter-based generator keyed by (seed, step, position).
struct SamplingParams {
    double temperature = 0.0;
    double top_p = 1.0;
    int top_k = 0;
};

struct RowStatsRequest {
    int item = 0;                              // batch item of the last forward
    std::span<const int32_t> head_row_index;   // index into that item's head_rows, one per stats row
    std::span<const int32_t> positions;        // canvas position each stats row describes
    SamplingParams sampling;
    uint64_t seed = 0;
    int step = 0;
    std::span<const int32_t> suppress_ids;     // logits forced to -inf first (e.g. logits_eos_inf)
    // Classifier-free guidance: logits = u + (scale + 1) * (c - u), u from this item's same row.
    int cfg_uncond_item = -1;
    double cfg_scale = 0.0;
    // If set: kl_prev = KL(p_t || p_prev) on the raw posterior (T = 1, before temperature) where
    // the store holds a previous posterior for the position; then, if update_posteriors, the
    // store keeps p_t for the next step.
    PosteriorStore* posteriors = nullptr;
    bool update_posteriors = true;
    // Optional, indexed by canvas position: 0 where no one reads the KL (kl_prev stays NaN, the
    // posterior is still kept). SureLock reads it only where a position can lock or unlock, so a
    // masked position's KL, an O(V) pass with a logarithm per token, is skipped unless the user
    // tracks KL. Empty or out of range: wanted.
    std::span<const uint8_t> kl_wanted_at;
    int display_top_k = 5;                     // candidates kept for the UI
    // Optional, indexed by canvas position: a token whose raw probability to report as
    // RowStats::query_p (-1 or out of range: none). Revocable decoders score the token a position
    // currently holds (COVER's u = -log p(y), WINO's shadow probability of the current token).
    std::span<const int32_t> query_token_at;
};

// Whether `req` wants position `pos`'s KL to its previous posterior (see kl_wanted_at).
inline bool kl_wanted(const RowStatsRequest& req, int32_t pos) {
    return pos < 0 || static_cast<std::size_t>(pos) >= req.kl_wanted_at.size() ||
           req.kl_wanted_at[static_cast<std::size_t>(pos)] != 0;
}

struct RowStats {
    int32_t position = -1;
    // Raw posterior, softmax(logits) at T = 1.
    int32_t argmax = -1;
    float p_max = 0.f;
    float p_second = 0.f;
    float entropy = 0.f;  // nats
    float lse = 0.f;      // log-sum-exp of the logits
    // Processed distribution (temperature, top-p, top-k) the token is sampled from.
    int32_t sampled = -1;
    float sampled_p_raw = 0.f;   // p of `sampled` under the raw posterior (LLaDA confidence)
    float sampled_p_proc = 0.f;  // p of `sampled` under the processed distribution (Dream confidence)
    float p_max_proc = 0.f;
    float p_second_proc = 0.f;
    float entropy_proc = 0.f;
    float kl_prev = std::numeric_limits<float>::quiet_NaN();  // NaN: no previous posterior
    float query_p = std::numeric_limits<float>::quiet_NaN();  // raw p of the query token, NaN: none
    std::vector<TokenProb> top;  // display_top_k most probable under the raw posterior
};

// Raw posteriors kept per position across steps (SureLock's p_{t-1}). Backend-owned storage.
class PosteriorStore {
public:
    virtual ~PosteriorStore() = default;
    virtual bool has(int pos) const = 0;
    virtual void erase(int pos) = 0;
    virtual void clear() = 0;
};

// The CPU reference of the per-row statistics over one logits row of length V.
// `prev` (may be empty) is the previous raw posterior for KL. Writes the new raw posterior into
// `posterior_out` when it is non-empty.
RowStats compute_row_stats(std::span<const float> logits, int32_t position, const RowStatsRequest& req,
                           std::span<const float> prev, std::span<float> posterior_out);

// The build of compute_row_stats' vectorised loops this process runs: by default the fastest this
// CPU has, "avx2+fma" on an x86-64 CPU that has both, else "portable" (the compiler's baseline
// vectors: SSE2 on x86-64). (An AVX-512 build of the same loops measured no faster.)
std::string_view row_stats_isa();
// The builds this CPU can run, "portable" first.
std::vector<std::string_view> row_stats_isas();
// Runs the named build ("" = the fastest) where this CPU has it: tests cover every build and
// benchmarks can compare them. False, and nothing changed, for a build the CPU cannot run. Not for
// use while another thread computes statistics.
bool use_row_stats_isa(std::string_view isa);

}  // namespace dlm
