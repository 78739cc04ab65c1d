// The per-row statistics of one logits row (row_stats.h). Accumulations are in double so that
// entropies and KLs of 150k-way distributions are not dominated by float rounding.
#include "compute/row_stats.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <string>

#include "compute/vector_math.h"
#include "util/counter_rng.h"
#include "util/error.h"

namespace dlm {

namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();
// KL(p_t || p_prev) needs log p_prev; a previous posterior that underflowed to 0 is treated as
// 1e-30 so the KL stays finite (it is then dominated by that token, as it should be).
constexpr double kPrevFloor = 1e-30;

// Softmax summary of `z` (entries may be -inf): max, log-sum-exp, argmax.
struct Softmax {
    double max = kNegInf;
    double lse = kNegInf;
    int32_t argmax = -1;
};

Softmax softmax_summary(std::span<const double> z, std::span<const int32_t> support) {
    Softmax s;
    for (int32_t i : support) {
        if (z[i] > s.max) {
            s.max = z[i];
            s.argmax = i;
        }
    }
    if (s.argmax < 0) return s;
    double sum = 0.0;
    for (int32_t i : support) sum += std::exp(z[i] - s.max);
    s.lse = s.max + std::log(sum);
    return s;
}

// What one pass over a row's logits gives; the raw posterior itself is left in `p`.
struct RawPosterior {
    double lse = 0.0, entropy = 0.0, kl = 0.0;
    double second = 0.0;  // the largest p but the argmax's
};

// Sum of n values in four interleaved partial sums: a fixed order (so the result does not depend
// on the compiler) that vectorises without reassociation.
[[gnu::always_inline]] inline double sum_lanes(const double* v, std::size_t n) {
    double lane[4] = {0.0, 0.0, 0.0, 0.0};
    std::size_t i = 0;
    for (; i + 4 <= n; i += 4)
        for (std::size_t j = 0; j < 4; ++j) lane[j] += v[i + j];
    for (; i < n; ++i) lane[i % 4] += v[i];
    return (lane[0] + lane[1]) + (lane[2] + lane[3]);
}

// The largest of n values >= 0 (0 for n = 0), in four lanes like sum_lanes.
[[gnu::always_inline]] inline double max_lanes(const double* v, std::size_t n) {
    double lane[4] = {0.0, 0.0, 0.0, 0.0};
    std::size_t i = 0;
    for (; i + 4 <= n; i += 4)
        for (std::size_t j = 0; j < 4; ++j) lane[j] = v[i + j] > lane[j] ? v[i + j] : lane[j];
    for (; i < n; ++i) lane[i % 4] = v[i] > lane[i % 4] ? v[i] : lane[i % 4];
    return std::max(std::max(lane[0], lane[1]), std::max(lane[2], lane[3]));
}

// The raw posterior p = softmax(l) (l's maximum given), its entropy and, if `prev` is set,
// KL(p || max(prev, floor)). These loops are most of the statistics' time, and the statistics a
// fixed share of every decode step, so they are written to vectorise: restrict-qualified arrays,
// selects instead of branches (this file is built with -fno-trapping-math), exp and log from
// vector_math.h instead of libm calls. A token with p = 0 (suppressed, or underflowed) adds
// nothing: its terms are selected away, since 0 * -inf is NaN.
[[gnu::always_inline]] inline RawPosterior raw_posterior_loops(const double* __restrict l, double* __restrict p,
                                                               double* __restrict term,
                                                               const float* __restrict prev, double max,
                                                               int32_t argmax, std::size_t n) {
    RawPosterior r;
    for (std::size_t i = 0; i < n; ++i) p[i] = vmath::exp_nonpositive(l[i] - max);
    const double sum = sum_lanes(p, n);
    r.lse = max + std::log(sum);
    const double inv_sum = 1.0 / sum, lse = r.lse;
    for (std::size_t i = 0; i < n; ++i) {
        const double pi = p[i] * inv_sum;
        p[i] = pi;
        term[i] = pi > 0.0 ? -pi * (l[i] - lse) : 0.0;
    }
    r.entropy = sum_lanes(term, n);
    const double p_argmax = p[argmax];
    p[argmax] = 0.0;
    r.second = max_lanes(p, n);
    p[argmax] = p_argmax;
    if (prev != nullptr) {
        constexpr auto kFloor = static_cast<float>(kPrevFloor);
        for (std::size_t i = 0; i < n; ++i) {
            const float q = prev[i] < kFloor ? kFloor : prev[i];
            const double pi = p[i];
            const double d = (l[i] - lse) - vmath::log_positive(q);
            term[i] = pi > 0.0 ? pi * d : 0.0;
        }
        r.kl = sum_lanes(term, n);
    }
    return r;
}

// The maximum of a row of logits, the first index holding it, and whether every entry is a number
// below +inf. The maximum and the check take one pass in four lanes of doubles that vectorises
// (selects only); the first index holding the maximum, a search that stops there. (The scalar
// scan this replaces, compares and branches per token, took as long as the exponentials.)
struct LogitsScan {
    double max = kNegInf;
    int32_t argmax = -1;  // -1: every entry is -inf
    bool valid = true;    // no NaN, no +inf
};

[[gnu::always_inline]] inline LogitsScan scan_loops(const double* __restrict l, std::size_t n) {
    constexpr double kInf = std::numeric_limits<double>::infinity();
    double lane_max[4] = {kNegInf, kNegInf, kNegInf, kNegInf};
    double lane_bad[4] = {0.0, 0.0, 0.0, 0.0};
    std::size_t i = 0;
    for (; i + 4 <= n; i += 4)
        for (std::size_t j = 0; j < 4; ++j) {
            const double v = l[i + j];
            lane_bad[j] = v < kInf ? lane_bad[j] : 1.0;  // NaN and +inf both fail v < inf
            lane_max[j] = v > lane_max[j] ? v : lane_max[j];
        }
    for (; i < n; ++i) {
        const double v = l[i];
        lane_bad[i % 4] = v < kInf ? lane_bad[i % 4] : 1.0;
        lane_max[i % 4] = v > lane_max[i % 4] ? v : lane_max[i % 4];
    }
    LogitsScan r;
    r.valid = lane_bad[0] + lane_bad[1] + lane_bad[2] + lane_bad[3] == 0.0;
    r.max = std::max(std::max(lane_max[0], lane_max[1]), std::max(lane_max[2], lane_max[3]));
    if (r.max == kNegInf) return r;
    std::size_t first = 0;
    while (l[first] != r.max) ++first;
    r.argmax = static_cast<int32_t>(first);
    return r;
}

using LogitsScanPass = LogitsScan (*)(const double*, std::size_t);

LogitsScan scan_generic(const double* l, std::size_t n) { return scan_loops(l, n); }

using RawPosteriorPass = RawPosterior (*)(const double*, double*, double*, const float*, double, int32_t,
                                          std::size_t);

RawPosterior raw_posterior_generic(const double* l, double* p, double* term, const float* prev, double max,
                                   int32_t argmax, std::size_t n) {
    return raw_posterior_loops(l, p, term, prev, max, argmax, n);
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define DLM_ROW_STATS_X86 1
// The same loops for CPUs with AVX2 and FMA: four doubles a lane instead of SSE2's two, and
// fused multiply-adds in the polynomials; chosen at run time, the build stays portable.
[[gnu::target("avx2,fma")]] RawPosterior raw_posterior_avx2(const double* l, double* p, double* term,
                                                           const float* prev, double max, int32_t argmax,
                                                           std::size_t n) {
    return raw_posterior_loops(l, p, term, prev, max, argmax, n);
}
[[gnu::target("avx2,fma")]] LogitsScan scan_avx2(const double* l, std::size_t n) { return scan_loops(l, n); }
#endif

struct RowStatsBuild {
    std::string_view isa;
    LogitsScanPass scan;
    RawPosteriorPass pass;
};

std::vector<RowStatsBuild> detect_row_stats_builds() {
    std::vector<RowStatsBuild> builds{{"portable", scan_generic, raw_posterior_generic}};
#ifdef DLM_ROW_STATS_X86
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
        builds.push_back({"avx2+fma", scan_avx2, raw_posterior_avx2});
    }
#endif
    return builds;
}

// The builds this CPU can run, fastest last (detected once).
const std::vector<RowStatsBuild>& row_stats_builds() {
    static const std::vector<RowStatsBuild> builds = detect_row_stats_builds();
    return builds;
}

std::atomic<std::size_t>& row_stats_build() {  // index into row_stats_builds()
    static std::atomic<std::size_t> build{row_stats_builds().size() - 1};
    return build;
}

const RowStatsBuild& row_stats_pass() { return row_stats_builds()[row_stats_build().load(std::memory_order_relaxed)]; }

// Orders ids by descending value, ties by ascending id: a strict total order, so partial sorts
// and full sorts agree and the result never depends on the algorithm.
struct ByValueDesc {
    const double* v;
    bool operator()(int32_t a, int32_t b) const { return v[a] > v[b] || (v[a] == v[b] && a < b); }
};

// Sorts the `count` best of `ids` to the front (in order) in O(V log count).
void sort_best(std::vector<int32_t>& ids, std::size_t count, const double* values) {
    count = std::min(count, ids.size());
    std::partial_sort(ids.begin(), ids.begin() + static_cast<std::ptrdiff_t>(count), ids.end(), ByValueDesc{values});
}

// Per-thread work arrays: a row of a 150k vocabulary needs several V-sized arrays, and
// allocating them per row would page-fault fresh memory on every call.
struct Scratch {
    std::vector<double> l, p, z, q, u;
    std::vector<int32_t> ids, kept;
};

Scratch& scratch() {
    thread_local Scratch s;
    return s;
}

}  // namespace

RowStats compute_row_stats(std::span<const float> logits, int32_t position, const RowStatsRequest& req,
                           std::span<const float> prev, std::span<float> posterior_out) {
    const std::size_t V = logits.size();
    if (V == 0) throw Error("row statistics: empty logits row");
    if (!prev.empty() && prev.size() != V)
        throw Error("row statistics: previous posterior of position " + std::to_string(position) + " has " +
                    std::to_string(prev.size()) + " entries, the vocabulary has " + std::to_string(V));
    if (!posterior_out.empty() && posterior_out.size() != V)
        throw Error("row statistics: posterior buffer has " + std::to_string(posterior_out.size()) +
                    " entries, the vocabulary has " + std::to_string(V));
    const SamplingParams& sp = req.sampling;
    if (!(sp.temperature >= 0.0) || !std::isfinite(sp.temperature))
        throw Error("sampling temperature must be >= 0, got " + std::to_string(sp.temperature));
    if (!(sp.top_p > 0.0 && sp.top_p <= 1.0))
        throw Error("top_p must be in (0, 1], got " + std::to_string(sp.top_p));
    if (sp.top_k < 0) throw Error("top_k must be >= 0 (0 = off), got " + std::to_string(sp.top_k));

    Scratch& w = scratch();
    // Raw logits with suppressed ids at -inf, then checked and reduced to their maximum.
    std::vector<double>& l = w.l;
    l.resize(V);
    for (std::size_t i = 0; i < V; ++i) l[i] = logits[i];
    for (int32_t id : req.suppress_ids) {
        if (id < 0 || static_cast<std::size_t>(id) >= V)
            throw Error("suppressed token id " + std::to_string(id) + " is outside the vocabulary (0.." +
                        std::to_string(V - 1) + ")");
        l[id] = kNegInf;
    }
    const RowStatsBuild& build = row_stats_pass();
    const LogitsScan scan = build.scan(l.data(), V);
    if (!scan.valid)
        for (std::size_t i = 0; i < V; ++i)
            if (std::isnan(l[i]) || l[i] == std::numeric_limits<double>::infinity())
                throw Error("logits of position " + std::to_string(position) + " contain NaN or +inf (token " +
                            std::to_string(i) + ")");
    Softmax raw;
    raw.max = scan.max;
    raw.argmax = scan.argmax;
    if (raw.argmax < 0)
        throw Error("every token of position " + std::to_string(position) + " is suppressed; nothing to sample");

    // Raw posterior, entropy and KL (raw_posterior_loops).
    const RawPosteriorPass raw_posterior = build.pass;
    std::vector<double>& p = w.p;
    p.resize(V);
    w.z.resize(V);  // scratch for the per-token terms
    const RawPosterior rp =
        raw_posterior(l.data(), p.data(), w.z.data(), prev.empty() ? nullptr : prev.data(), raw.max, raw.argmax, V);
    raw.lse = rp.lse;
    const double* pd = p.data();

    RowStats s;
    s.position = position;
    s.argmax = raw.argmax;
    s.lse = static_cast<float>(raw.lse);
    const double entropy = rp.entropy, kl = rp.kl;
    s.p_max = static_cast<float>(p[raw.argmax]);
    s.p_second = static_cast<float>(rp.second);
    s.entropy = static_cast<float>(std::max(entropy, 0.0));
    // Rounding of the stored float posterior can push a true ~0 KL a hair below zero.
    if (!prev.empty()) s.kl_prev = static_cast<float>(std::max(kl, 0.0));
    for (std::size_t i = 0; i < posterior_out.size(); ++i) posterior_out[i] = static_cast<float>(p[i]);
    if (position >= 0 && static_cast<std::size_t>(position) < req.query_token_at.size()) {
        const int32_t q = req.query_token_at[static_cast<std::size_t>(position)];
        if (q >= 0 && static_cast<std::size_t>(q) < V) s.query_p = static_cast<float>(p[static_cast<std::size_t>(q)]);
    }

    // Display candidates: the k best kept in order while scanning once (k is a handful).
    if (req.display_top_k > 0) {
        const std::size_t k = std::min<std::size_t>(static_cast<std::size_t>(req.display_top_k), V);
        std::vector<int32_t>& best = w.ids;
        best.clear();
        const ByValueDesc better{pd};
        double entry = -1.0;  // p of the k-th best once k are held: anything below it cannot enter
        for (std::size_t i = 0; i < V; ++i) {
            if (pd[i] < entry) continue;
            const auto id = static_cast<int32_t>(i);
            if (best.size() == k && !better(id, best.back())) continue;
            if (best.size() == k) best.pop_back();
            best.insert(std::upper_bound(best.begin(), best.end(), id, better), id);
            if (best.size() == k) entry = pd[best.back()];
        }
        s.top.reserve(k);
        for (int32_t id : best) s.top.push_back({id, static_cast<float>(p[id])});
    }

    if (sp.temperature == 0.0) {
        // Greedy: the processed distribution is the raw one.
        s.sampled = raw.argmax;
        s.sampled_p_raw = s.p_max;
        s.sampled_p_proc = s.p_max;
        s.p_max_proc = s.p_max;
        s.p_second_proc = s.p_second;
        s.entropy_proc = s.entropy;
        return s;
    }

    // Tempered logits over the support (finite entries).
    std::vector<double>& z = w.z;
    z.assign(V, kNegInf);
    std::vector<int32_t>& kept = w.kept;
    kept.clear();
    for (std::size_t i = 0; i < V; ++i) {
        if (l[i] == kNegInf) continue;
        z[i] = l[i] / sp.temperature;
        kept.push_back(static_cast<int32_t>(i));
    }
    // Dream's order: temperature, then top-p, then top-k (generation_utils.sample_tokens).
    // Top-p: the smallest most-probable set whose mass reaches top_p (always >= 1 token). The
    // prefix is sorted in growing chunks so that a peaked distribution costs O(V), not O(V log V).
    if (sp.top_p < 1.0) {
        const Softmax t = softmax_summary(z, kept);
        std::vector<double>& q = w.q;
        q.assign(V, 0.0);
        for (int32_t i : kept) q[i] = std::exp(z[i] - t.lse);
        std::size_t chunk = 64, keep = kept.size();
        for (;;) {
            const std::size_t n = std::min(chunk, kept.size());
            sort_best(kept, n, q.data());
            double cum = 0.0;
            std::size_t j = 0;
            for (; j < n; ++j) {
                cum += q[kept[j]];
                if (cum >= sp.top_p) break;
            }
            if (j < n) {
                keep = j + 1;
                break;
            }
            if (n == kept.size()) {  // rounding: the whole support sums just below top_p
                keep = n;
                break;
            }
            chunk *= 8;
        }
        kept.resize(keep);
    }

    // Top-k: the k largest tempered logits (ties broken by the lower id).
    if (sp.top_k > 0 && static_cast<std::size_t>(sp.top_k) < kept.size()) {
        sort_best(kept, static_cast<std::size_t>(sp.top_k), z.data());
        kept.resize(static_cast<std::size_t>(sp.top_k));
    }
    // Processed distribution over `kept`, then Gumbel-max.
    const Softmax proc = softmax_summary(z, kept);
    const CounterRng rng(req.seed, rng_stream::kSampling);
    // One uniform per token id (draw = id), so a token's noise does not depend on what else was
    // kept. When most tokens are kept, draw them in bulk (two per Philox block).
    const bool bulk = kept.size() * 4 > V;
    if (bulk) {
        w.u.resize(V);
        rng.fill_uniform(static_cast<uint64_t>(req.step), static_cast<uint64_t>(position), 0, w.u);
    }
    int32_t best = -1;
    double best_score = kNegInf, pmax = 0.0, psecond = 0.0, ent = 0.0;
    for (int32_t i : kept) {
        const double logq = z[i] - proc.lse;
        const double q = std::exp(logq);
        ent -= q * logq;
        if (q > pmax) {
            psecond = pmax;
            pmax = q;
        } else if (q > psecond) {
            psecond = q;
        }
        const double u = bulk ? w.u[static_cast<std::size_t>(i)]
                              : rng.uniform(static_cast<uint64_t>(req.step), static_cast<uint64_t>(position),
                                            static_cast<uint64_t>(i));
        const double score = z[i] - std::log(-std::log(u));
        if (score > best_score || (score == best_score && i < best)) {
            best_score = score;
            best = i;
        }
    }
    s.sampled = best;
    s.sampled_p_raw = static_cast<float>(p[best]);
    s.sampled_p_proc = static_cast<float>(std::exp(z[best] - proc.lse));
    s.p_max_proc = static_cast<float>(pmax);
    s.p_second_proc = static_cast<float>(psecond);
    s.entropy_proc = static_cast<float>(std::max(ent, 0.0));
    return s;
}

std::string_view row_stats_isa() { return row_stats_pass().isa; }

std::vector<std::string_view> row_stats_isas() {
    std::vector<std::string_view> isas;
    for (const RowStatsBuild& b : row_stats_builds()) isas.push_back(b.isa);
    return isas;
}

bool use_row_stats_isa(std::string_view isa) {
    const std::vector<RowStatsBuild>& builds = row_stats_builds();
    for (std::size_t i = 0; i < builds.size(); ++i)
        if (builds[i].isa == isa || (isa.empty() && i + 1 == builds.size())) {
            row_stats_build().store(i, std::memory_order_relaxed);
            return true;
        }
    return false;
}

}  // namespace dlm
