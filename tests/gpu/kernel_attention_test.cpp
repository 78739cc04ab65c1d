// The attention kernels against a double-precision loop reference fed exactly what the kernels
// see (q rounded to bf16, K/V in bf16): launch_attention for head dims 64, 128 and the padded
// generic path, grouped-query heads, scattered query rows, column counts off the tile size,
// override columns with and without the self-seeing diagonal, and split columns; causal rows and
// WINO's shadow block (hidden columns); the COVER closed-form correction against the self-seeing
// attention; the head-averaged probabilities.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "attention.cuh"
#include "attention_probs.cuh"
#include "cover_correction.cuh"
#include "gpu_test_support.h"
#include "util/error.h"

namespace {

using namespace dlm::gpu_test;
using bf16 = __nv_bfloat16;

constexpr double kLseTol = 1e-3;

struct Shape {
    int m, n, n_heads, n_kv_heads, head_dim;
};

std::string describe(const Shape& s) {
    return "m=" + std::to_string(s.m) + " n=" + std::to_string(s.n) + " heads=" + std::to_string(s.n_heads) + "/" +
           std::to_string(s.n_kv_heads) + " head_dim=" + std::to_string(s.head_dim);
}

// Host-side inputs. q sits in a fused-QKV-like row (Q heads, then room for K and V heads the
// kernel must skip); the output rows are wider than the heads, so strides are exercised.
struct Problem {
    Shape s{};
    int q_dim = 0, kv_dim = 0, q_stride = 0, out_stride = 0;
    std::vector<float> q;             // [m][q_stride], fp32
    std::vector<float> k, v;          // the item's cache [n][kv_dim], bf16 values
    std::vector<float> k_ovr, v_ovr;  // the override source, bf16 values; empty without override
    std::vector<uint8_t> overridden;  // [n]; empty without override
    std::vector<int32_t> rows;        // [m] distinct canvas positions in arbitrary order
    // Hidden columns: causal rows see no later column; a shadow block (count > 0) is seen only by
    // its own rows, and each shadow row misses its twin.
    bool causal = false;
    int shadow_first = -1, shadow_twin_first = 0, shadow_count = 0;
};

// Whether the query row at canvas position q sees column k: the rule written out on its own
// (WINO's rule for the shadow block), independently of the kernels' helpers.
bool visible(const Problem& p, int q, int k) {
    if (p.causal && k > q) return false;
    if (p.shadow_count > 0) {
        const bool q_shadow = q >= p.shadow_first && q < p.shadow_first + p.shadow_count;
        const bool k_shadow = k >= p.shadow_first && k < p.shadow_first + p.shadow_count;
        if (k_shadow) return q_shadow;
        if (q_shadow && k == p.shadow_twin_first + (q - p.shadow_first)) return false;
    }
    return true;
}

std::vector<float> uniform(std::size_t count, float lo, float hi, std::mt19937& rng) {
    std::uniform_real_distribution<float> dist(lo, hi);
    std::vector<float> out(count);
    for (float& x : out) x = dist(rng);
    return out;
}

// Scores q·k/sqrt(d) come out roughly standard normal with q in ±3 and K in ±1. The query rows
// sit at positions below row_limit (all n when 0).
Problem make_problem(const Shape& s, uint32_t seed, double override_fraction = 0.0, int row_limit = 0) {
    std::mt19937 rng(seed);
    Problem p;
    p.s = s;
    p.q_dim = s.n_heads * s.head_dim;
    p.kv_dim = s.n_kv_heads * s.head_dim;
    p.q_stride = p.q_dim + 2 * p.kv_dim;
    p.out_stride = p.q_dim + 6;
    p.q = uniform(static_cast<std::size_t>(s.m) * p.q_stride, -3.0f, 3.0f, rng);
    p.k = round_bf16(uniform(static_cast<std::size_t>(s.n) * p.kv_dim, -1.0f, 1.0f, rng));
    p.v = round_bf16(uniform(static_cast<std::size_t>(s.n) * p.kv_dim, -1.0f, 1.0f, rng));
    std::vector<int32_t> positions(static_cast<std::size_t>(row_limit > 0 ? row_limit : s.n));
    std::iota(positions.begin(), positions.end(), 0);
    std::shuffle(positions.begin(), positions.end(), rng);
    p.rows.assign(positions.begin(), positions.begin() + s.m);
    if (override_fraction > 0.0) {
        p.k_ovr = round_bf16(uniform(p.k.size(), -1.0f, 1.0f, rng));
        p.v_ovr = round_bf16(uniform(p.v.size(), -1.0f, 1.0f, rng));
        std::bernoulli_distribution pick(override_fraction);
        p.overridden.resize(static_cast<std::size_t>(s.n));
        for (auto& o : p.overridden) o = pick(rng) ? 1 : 0;
        // The first two query rows are seeds (rows at overridden positions); the third is not.
        p.overridden[static_cast<std::size_t>(p.rows[0])] = 1;
        if (s.m > 1) p.overridden[static_cast<std::size_t>(p.rows[1])] = 1;
        if (s.m > 2) p.overridden[static_cast<std::size_t>(p.rows[2])] = 0;
    }
    return p;
}

// Points the K row of `column` along query row `row`'s q (per K/V head, the group's first query
// head), so that column takes a large weight in that row: makes a one-column difference (the
// fresh-versus-override diagonal, a hidden twin) visible instead of a 1/n effect.
void align_key(Problem& p, std::vector<float>& keys, int row, int column, float magnitude) {
    const int group = p.s.n_heads / p.s.n_kv_heads, hd = p.s.head_dim;
    const std::size_t pos = static_cast<std::size_t>(column);
    for (int g = 0; g < p.s.n_kv_heads; ++g)
        for (int d = 0; d < hd; ++d) {
            const float qd = p.q[static_cast<std::size_t>(row) * p.q_stride + static_cast<std::size_t>(g * group) * hd + d];
            keys[pos * p.kv_dim + static_cast<std::size_t>(g) * hd + d] = qd >= 0.0f ? magnitude : -magnitude;
        }
}

// The K row at query row `row`'s own position.
void align_key_with_row(Problem& p, std::vector<float>& keys, int row, float magnitude) {
    align_key(p, keys, row, p.rows[static_cast<std::size_t>(row)], magnitude);
}

// Large diagonal weights for the two seed rows: row 0's fresh key, row 1's override key
// (magnitudes exact in bf16, so the reference and the kernel see the same keys).
void emphasise_seed_diagonals(Problem& p) {
    align_key_with_row(p, p.k, 0, 0.5f);
    if (p.s.m > 1) align_key_with_row(p, p.k_ovr, 1, 0.3125f);
}

struct Reference {
    std::vector<float> out;    // [m][q_dim]
    std::vector<float> lse;    // [m][n_heads]
    std::vector<float> probs;  // [m][n], head-averaged
};

// The definition, in double, for the query rows listed in `check_rows` (all when empty).
Reference reference_attention(const Problem& p, bool self_sees_fresh, std::vector<int> check_rows = {}) {
    const Shape& s = p.s;
    const int group = s.n_heads / s.n_kv_heads, hd = s.head_dim;
    const double scale = 1.0 / std::sqrt(static_cast<double>(hd));
    const std::vector<float> qb = round_bf16(p.q);
    if (check_rows.empty()) {
        check_rows.resize(static_cast<std::size_t>(s.m));
        std::iota(check_rows.begin(), check_rows.end(), 0);
    }
    Reference ref;
    ref.out.assign(static_cast<std::size_t>(s.m) * p.q_dim, 0.0f);
    ref.lse.assign(static_cast<std::size_t>(s.m) * s.n_heads, 0.0f);
    ref.probs.assign(static_cast<std::size_t>(s.m) * s.n, 0.0f);
    std::vector<double> score(static_cast<std::size_t>(s.n));
    std::vector<double> acc(static_cast<std::size_t>(hd));
    for (int i : check_rows) {
        const int pos = p.rows[static_cast<std::size_t>(i)];
        for (int h = 0; h < s.n_heads; ++h) {
            const std::size_t head_off = static_cast<std::size_t>(h / group) * hd;
            const float* q = qb.data() + static_cast<std::size_t>(i) * p.q_stride + static_cast<std::size_t>(h) * hd;
            auto from_override = [&](int j) {
                return !p.overridden.empty() && p.overridden[static_cast<std::size_t>(j)] && !(self_sees_fresh && j == pos);
            };
            double max_score = -INFINITY;
            for (int j = 0; j < s.n; ++j) {
                score[static_cast<std::size_t>(j)] = -INFINITY;
                if (!visible(p, pos, j)) continue;  // never read: hidden K/V may be anything, NaN included
                const float* k = (from_override(j) ? p.k_ovr : p.k).data() + static_cast<std::size_t>(j) * p.kv_dim + head_off;
                double dot = 0.0;
                for (int d = 0; d < hd; ++d) dot += static_cast<double>(q[d]) * k[d];
                score[static_cast<std::size_t>(j)] = dot * scale;
                max_score = std::max(max_score, dot * scale);
            }
            double sum = 0.0;
            for (int j = 0; j < s.n; ++j) sum += std::exp(score[static_cast<std::size_t>(j)] - max_score);
            const double lse = max_score + std::log(sum);
            std::fill(acc.begin(), acc.end(), 0.0);
            for (int j = 0; j < s.n; ++j) {
                if (!visible(p, pos, j)) continue;
                const double w = std::exp(score[static_cast<std::size_t>(j)] - lse);
                const float* v = (from_override(j) ? p.v_ovr : p.v).data() + static_cast<std::size_t>(j) * p.kv_dim + head_off;
                for (int d = 0; d < hd; ++d) acc[static_cast<std::size_t>(d)] += w * v[d];
                ref.probs[static_cast<std::size_t>(i) * s.n + j] += static_cast<float>(w / s.n_heads);
            }
            for (int d = 0; d < hd; ++d)
                ref.out[static_cast<std::size_t>(i) * p.q_dim + static_cast<std::size_t>(h) * hd + d] =
                    static_cast<float>(acc[static_cast<std::size_t>(d)]);
            ref.lse[static_cast<std::size_t>(i) * s.n_heads + h] = static_cast<float>(lse);
        }
    }
    return ref;
}

// The inputs on the device and the AttentionArgs pointing at them. The output starts as all-ones
// bytes (bf16 NaN), so a head column the kernel forgot to write cannot pass.
struct DeviceProblem {
    dlm::cuda::DeviceBuffer<float> q;
    dlm::cuda::DeviceBuffer<bf16> k, v, k_ovr, v_ovr;
    dlm::cuda::DeviceBuffer<uint8_t> overridden;
    dlm::cuda::DeviceBuffer<int32_t> rows;
    dlm::cuda::DeviceBuffer<bf16> out;
    dlm::cuda::DeviceBuffer<float> out_f32;  // the fp32 copy COVER's correction reads
    dlm::cuda::DeviceBuffer<float> lse;
    dlm::cuda::AttentionArgs args;

    DeviceProblem(const Problem& p, bool self_sees_fresh)
        : q(to_device(p.q)), k(to_device(to_bf16(p.k))), v(to_device(to_bf16(p.v))), rows(to_device(p.rows)),
          out(static_cast<std::size_t>(p.s.m) * p.out_stride, "test attention out"),
          out_f32(static_cast<std::size_t>(p.s.m) * p.out_stride, "test attention fp32 out"),
          lse(static_cast<std::size_t>(p.s.m) * p.s.n_heads, "test attention lse") {
        dlm::cuda::check(cudaMemset(out.get(), 0xff, out.bytes()), "test output fill");
        dlm::cuda::check(cudaMemset(out_f32.get(), 0xff, out_f32.bytes()), "test fp32 output fill");
        args.q = q.get();
        args.q_stride = p.q_stride;
        args.k_cache = k.get();
        args.v_cache = v.get();
        if (!p.overridden.empty()) {
            k_ovr = to_device(to_bf16(p.k_ovr));
            v_ovr = to_device(to_bf16(p.v_ovr));
            overridden = to_device(p.overridden);
            args.k_override = k_ovr.get();
            args.v_override = v_ovr.get();
            args.overridden = overridden.get();
        }
        args.self_sees_fresh = self_sees_fresh;
        args.causal = p.causal;
        args.shadow_first = p.shadow_first;
        args.shadow_twin_first = p.shadow_twin_first;
        args.shadow_count = p.shadow_count;
        args.row_pos = rows.get();
        args.m = p.s.m;
        args.n = p.s.n;
        args.n_heads = p.s.n_heads;
        args.n_kv_heads = p.s.n_kv_heads;
        args.head_dim = p.s.head_dim;
        args.scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(p.s.head_dim)));
        args.out = out.get();
        args.out_stride = p.out_stride;
        args.out_f32 = out_f32.get();
        args.lse = lse.get();
    }
};

// The fp32 copy holds what the bf16 output was rounded from: each head column rounds to the bf16
// value bit for bit (unsplit and split paths), and nothing past the heads is written.
void expect_fp32_copy_matches(const Problem& p, const DeviceProblem& d) {
    const std::vector<bf16> raw = to_host(d.out, static_cast<std::size_t>(p.s.m) * p.out_stride);
    const std::vector<float> f32 = to_host(d.out_f32, static_cast<std::size_t>(p.s.m) * p.out_stride);
    for (std::size_t at = 0; at < raw.size(); ++at) {
        const int c = static_cast<int>(at % static_cast<std::size_t>(p.out_stride));
        uint32_t bits = 0;
        std::memcpy(&bits, &f32[at], sizeof(bits));
        if (c >= p.q_dim) {
            ASSERT_EQ(bits, 0xffffffffu) << "fp32 copy written past the heads at " << at;
            continue;
        }
        const bf16 rounded = __float2bfloat16(f32[at]);
        uint16_t a = 0, b = 0;
        std::memcpy(&a, &rounded, sizeof(a));
        std::memcpy(&b, &raw[at], sizeof(b));
        ASSERT_EQ(a, b) << "fp32 copy " << f32[at] << " does not round to the bf16 output at " << at;
    }
}

struct Result {
    std::vector<float> out;  // [m][q_dim], the head columns only
    std::vector<float> lse;  // [m][n_heads]
};

// Downloads the output; also checks the stride padding past the heads was left untouched.
Result download(const Problem& p, const DeviceProblem& d) {
    const std::vector<bf16> raw = to_host(d.out, static_cast<std::size_t>(p.s.m) * p.out_stride);
    Result r;
    r.out.resize(static_cast<std::size_t>(p.s.m) * p.q_dim);
    for (int i = 0; i < p.s.m; ++i) {
        for (int c = 0; c < p.out_stride; ++c) {
            const bf16 x = raw[static_cast<std::size_t>(i) * p.out_stride + c];
            if (c < p.q_dim) {
                r.out[static_cast<std::size_t>(i) * p.q_dim + c] = __bfloat162float(x);
            } else {
                uint16_t bits = 0;
                std::memcpy(&bits, &x, sizeof(bits));
                EXPECT_EQ(bits, 0xffffu) << "row " << i << " column " << c << " lies past the heads but was written";
            }
        }
    }
    r.lse = to_host(d.lse, static_cast<std::size_t>(p.s.m) * p.s.n_heads);
    return r;
}

std::vector<float> pick_rows(const std::vector<float>& all, int width, const std::vector<int>& rows) {
    std::vector<float> out;
    for (int i : rows) out.insert(out.end(), all.begin() + static_cast<std::ptrdiff_t>(i) * width,
                                  all.begin() + static_cast<std::ptrdiff_t>(i + 1) * width);
    return out;
}

void expect_all_finite(const std::vector<float>& v, const char* what) {
    for (std::size_t i = 0; i < v.size(); ++i) ASSERT_TRUE(std::isfinite(v[i])) << what << "[" << i << "] = " << v[i];
}

void expect_outputs_close(const std::vector<float>& got, const std::vector<float>& want, const char* what) {
    expect_all_finite(got, what);
    EXPECT_LE(max_rel_error(got, want, std::max(rms(want), 1e-6)), kBf16Tol) << what;
}

void expect_lse_close(const std::vector<float>& got, const std::vector<float>& want, const char* what) {
    expect_all_finite(got, what);
    ASSERT_EQ(got.size(), want.size());
    double worst = 0.0;
    for (std::size_t i = 0; i < got.size(); ++i) worst = std::max(worst, std::abs(double(got[i]) - double(want[i])));
    EXPECT_LE(worst, kLseTol) << what;
}

Result run_attention(const Problem& p, bool self_sees_fresh) {
    DeviceProblem d(p, self_sees_fresh);
    dlm::cuda::launch_attention(d.args, nullptr);
    expect_fp32_copy_matches(p, d);
    return download(p, d);
}

void check_attention(const Shape& s, uint32_t seed) {
    SCOPED_TRACE(describe(s));
    const Problem p = make_problem(s, seed);
    const Reference ref = reference_attention(p, true);
    const Result got = run_attention(p, true);
    expect_outputs_close(got.out, ref.out, "attention output");
    expect_lse_close(got.lse, ref.lse, "attention lse");
}

TEST(GpuAttention, HeadDim64MatchesReference) {
    DLM_REQUIRE_GPU();
    check_attention({77, 77, 4, 4, 64}, 1);  // every position a query row, in shuffled order
}

TEST(GpuAttention, GroupedHeadsHeadDim128ScatteredRows) {
    DLM_REQUIRE_GPU();
    check_attention({50, 333, 8, 2, 128}, 2);
    check_attention({130, 333, 8, 2, 128}, 3);  // several row tiles, the last one partial
}

TEST(GpuAttention, GenericHeadDimsArePadded) {
    DLM_REQUIRE_GPU();
    check_attention({21, 77, 4, 2, 36}, 4);    // not a multiple of 8: element-wise staging
    check_attention({21, 77, 4, 2, 80}, 5);    // padded to 128
    check_attention({21, 77, 4, 2, 200}, 6);   // padded to 256
    check_attention({21, 100, 2, 1, 256}, 7);  // the widest tile exactly
}

TEST(GpuAttention, OverrideColumnsWithAndWithoutFreshSelf) {
    DLM_REQUIRE_GPU();
    for (const Shape& s : {Shape{60, 333, 8, 2, 128}, Shape{40, 77, 4, 4, 64}}) {
        SCOPED_TRACE(describe(s));
        Problem p = make_problem(s, 8, 0.3);
        emphasise_seed_diagonals(p);
        const Reference ref_override = reference_attention(p, false);
        const Reference ref_fresh = reference_attention(p, true);
        // The two views must differ clearly on the seed rows, or this test could not tell them apart.
        const std::vector<int> seeds = {0, 1};
        ASSERT_GT(max_rel_error(pick_rows(ref_override.out, p.q_dim, seeds), pick_rows(ref_fresh.out, p.q_dim, seeds),
                                rms(ref_fresh.out)),
                  10 * kBf16Tol);
        {
            SCOPED_TRACE("self_sees_fresh = false");
            const Result got = run_attention(p, false);
            expect_outputs_close(got.out, ref_override.out, "override attention output");
            expect_lse_close(got.lse, ref_override.lse, "override attention lse");
        }
        {
            SCOPED_TRACE("self_sees_fresh = true");
            const Result got = run_attention(p, true);
            expect_outputs_close(got.out, ref_fresh.out, "self-seeing attention output");
            expect_lse_close(got.lse, ref_fresh.lse, "self-seeing attention lse");
        }
    }
}

TEST(GpuAttention, FewRowsSplitColumnsAndCombine) {
    DLM_REQUIRE_GPU();
    for (const Shape& s : {Shape{3, 1088, 4, 2, 128}, Shape{5, 1000, 8, 8, 64}}) {
        SCOPED_TRACE(describe(s));
        Problem p = make_problem(s, 9, 0.25);
        emphasise_seed_diagonals(p);
        const Reference ref = reference_attention(p, true);

        DeviceProblem unsplit(p, true);
        dlm::cuda::launch_attention(unsplit.args, nullptr);
        const Result got_unsplit = download(p, unsplit);
        expect_outputs_close(got_unsplit.out, ref.out, "unsplit output");
        expect_lse_close(got_unsplit.lse, ref.lse, "unsplit lse");

        DeviceProblem split(p, true);
        const std::size_t floats = dlm::cuda::attention_split_workspace_floats(split.args);
        ASSERT_GT(floats, 0u) << "a handful of rows over 1000+ columns should be split on any GPU";
        dlm::cuda::DeviceBuffer<float> workspace(floats, "test split workspace");
        split.args.split_workspace = workspace.get();
        split.args.split_workspace_floats = floats;
        dlm::cuda::launch_attention(split.args, nullptr);
        const Result got_split = download(p, split);
        expect_outputs_close(got_split.out, ref.out, "split output");
        expect_lse_close(got_split.lse, ref.lse, "split lse");
        expect_outputs_close(got_split.out, got_unsplit.out, "split versus unsplit output");
    }
}

TEST(GpuAttention, LladaShapeSampledRows) {
    DLM_REQUIRE_GPU();
    const Shape s{1088, 1088, 32, 32, 128};
    const Problem p = make_problem(s, 10);
    const std::vector<int> sample = {0, 1, 63, 64, 65, 500, 777, 1023, 1024, 1086, 1087};
    const Reference ref = reference_attention(p, true, sample);
    DeviceProblem d(p, true);
    dlm::cuda::launch_attention(d.args, nullptr);
    const Result got = download(p, d);
    expect_outputs_close(pick_rows(got.out, p.q_dim, sample), pick_rows(ref.out, p.q_dim, sample), "sampled output");
    expect_lse_close(pick_rows(got.lse, s.n_heads, sample), pick_rows(ref.lse, s.n_heads, sample), "sampled lse");
    expect_all_finite(got.out, "output");

    // For the record (not asserted): the kernel's speed at the size it was tuned for.
    cudaEvent_t start = nullptr, stop = nullptr;
    dlm::cuda::check(cudaEventCreate(&start), "event");
    dlm::cuda::check(cudaEventCreate(&stop), "event");
    constexpr int kRuns = 20;
    dlm::cuda::check(cudaEventRecord(start), "event record");
    for (int r = 0; r < kRuns; ++r) dlm::cuda::launch_attention(d.args, nullptr);
    dlm::cuda::check(cudaEventRecord(stop), "event record");
    dlm::cuda::check(cudaEventSynchronize(stop), "event sync");
    float ms = 0.0f;
    dlm::cuda::check(cudaEventElapsedTime(&ms, start, stop), "event time");
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    const double us = 1000.0 * ms / kRuns;
    const double flops = 4.0 * s.m * s.n * s.n_heads * s.head_dim;
    std::printf("[ attention ] %s: %.1f us per launch, %.0f TFLOP/s\n", describe(s).c_str(), us, flops / us * 1e-6);
}

// Runs the attention unsplit and, where these shapes split the columns on this device, split as
// well; both must match the reference. Returns whether the split path ran.
bool expect_attention_matches(const Problem& p, bool self_sees_fresh, const Reference& ref) {
    DeviceProblem unsplit(p, self_sees_fresh);
    dlm::cuda::launch_attention(unsplit.args, nullptr);
    expect_fp32_copy_matches(p, unsplit);
    const Result got = download(p, unsplit);
    expect_outputs_close(got.out, ref.out, "unsplit output");
    expect_lse_close(got.lse, ref.lse, "unsplit lse");

    DeviceProblem split(p, self_sees_fresh);
    const std::size_t floats = dlm::cuda::attention_split_workspace_floats(split.args);
    if (floats == 0) return false;
    dlm::cuda::DeviceBuffer<float> workspace(floats, "test split workspace");
    split.args.split_workspace = workspace.get();
    split.args.split_workspace_floats = floats;
    dlm::cuda::launch_attention(split.args, nullptr);
    expect_fp32_copy_matches(p, split);
    const Result got_split = download(p, split);
    expect_outputs_close(got_split.out, ref.out, "split output");
    expect_lse_close(got_split.lse, ref.lse, "split lse");
    return true;
}

// The probabilities after the attention: the reference's, exactly 0 at every hidden column, and
// each row summing to 1. The buffer starts as NaN bytes, so an entry left unwritten fails.
void expect_probs_match(const Problem& p, const Reference& ref) {
    const Shape& s = p.s;
    DeviceProblem d(p, true);
    dlm::cuda::launch_attention(d.args, nullptr);
    dlm::cuda::DeviceBuffer<float> probs(static_cast<std::size_t>(s.m) * s.n, "test probs");
    dlm::cuda::check(cudaMemset(probs.get(), 0xff, probs.bytes()), "test probs fill");
    dlm::cuda::launch_attention_probs(d.args, d.lse.get(), probs.get(), nullptr);
    const std::vector<float> got = to_host(probs, static_cast<std::size_t>(s.m) * s.n);
    expect_all_finite(got, "probabilities");
    EXPECT_LE(max_rel_error(got, ref.probs, 1.0 / s.n), kBf16Tol) << "probabilities";
    for (int i = 0; i < s.m; ++i) {
        const int pos = p.rows[static_cast<std::size_t>(i)];
        double sum = 0.0;
        for (int j = 0; j < s.n; ++j) {
            const float x = got[static_cast<std::size_t>(i) * s.n + j];
            sum += x;
            if (!visible(p, pos, j)) {
                ASSERT_EQ(x, 0.0f) << "row " << i << " (position " << pos << ") column " << j;
            }
        }
        EXPECT_NEAR(sum, 1.0, 1e-3) << "row " << i;
    }
}

// Makes every K/V entry (cache and override source) of the columns after the largest row
// position NaN: a causal kernel must never read them (a causal cache need not hold them).
void poison_columns_after_last_row(Problem& p) {
    const int last = *std::max_element(p.rows.begin(), p.rows.end());
    const float nan = std::numeric_limits<float>::quiet_NaN();
    for (std::vector<float>* kv : {&p.k, &p.v, &p.k_ovr, &p.v_ovr})
        if (!kv->empty())
            std::fill(kv->begin() + static_cast<std::ptrdiff_t>(last + 1) * p.kv_dim, kv->end(), nan);
}

// Causal rows: each query row sees columns 0..its position only, in one launch over scattered
// rows (so a block mixes early and late positions); columns after every row are NaN and must not
// be read, by the attention (unsplit and split, where a split can be left with no tile at all) nor
// by the probabilities.
TEST(GpuAttention, CausalRowsSeeOnlyEarlierColumns) {
    DLM_REQUIRE_GPU();
    struct Case {
        Shape s;
        int row_limit;
        bool must_split;
    };
    for (const Case& c : {Case{{77, 77, 4, 4, 64}, 0, false}, Case{{100, 333, 8, 2, 128}, 200, false},
                          Case{{21, 100, 2, 1, 256}, 60, false}, Case{{3, 1088, 4, 2, 128}, 71, true},
                          Case{{5, 1000, 8, 8, 64}, 0, true}}) {
        SCOPED_TRACE(describe(c.s) + " rows below " + std::to_string(c.row_limit));
        Problem p = make_problem(c.s, 20, 0.0, c.row_limit);
        p.causal = true;
        const Reference ref = reference_attention(p, true);
        // The mask matters: the same rows seeing every column give other outputs.
        Problem open = p;
        open.causal = false;
        ASSERT_GT(max_rel_error(reference_attention(open, true).out, ref.out, rms(ref.out)), 10 * kBf16Tol);

        poison_columns_after_last_row(p);
        const bool split = expect_attention_matches(p, true, ref);
        if (c.must_split) {
            EXPECT_TRUE(split) << "a handful of rows over 1000+ columns should be split on any GPU";
        }
        if (c.s.m >= 16) expect_probs_match(p, ref);
    }
}

// COVER's override on a causal model (qwen2): the override and the self-seeing diagonal combine
// with the causal mask; the closed-form correction restores the self-seeing view under it.
TEST(GpuAttention, CausalRowsWithOverrideColumns) {
    DLM_REQUIRE_GPU();
    const Shape s{60, 333, 8, 2, 128};
    Problem p = make_problem(s, 21, 0.3, 250);
    p.causal = true;
    emphasise_seed_diagonals(p);
    const Reference ref_override = reference_attention(p, false);
    const Reference ref_fresh = reference_attention(p, true);
    poison_columns_after_last_row(p);
    {
        SCOPED_TRACE("self_sees_fresh = false");
        expect_attention_matches(p, false, ref_override);
    }
    {
        SCOPED_TRACE("self_sees_fresh = true");
        expect_attention_matches(p, true, ref_fresh);
        expect_probs_match(p, ref_fresh);
    }
    std::vector<int32_t> seed_rows;
    for (int i = 0; i < s.m; ++i)
        if (p.overridden[static_cast<std::size_t>(p.rows[static_cast<std::size_t>(i)])]) seed_rows.push_back(i);
    DeviceProblem d(p, false);
    dlm::cuda::launch_attention(d.args, nullptr);
    const auto d_seeds = to_device(seed_rows);
    dlm::cuda::launch_cover_correction(d.args, d_seeds.get(), static_cast<int>(seed_rows.size()), nullptr);
    const Result corrected = download(p, d);
    expect_outputs_close(corrected.out, ref_fresh.out, "corrected causal output");
    expect_lse_close(corrected.lse, ref_fresh.lse, "corrected causal lse");
}

// WINO's shadow block: the last `count` columns shadow [twin_first, + count). The shadow rows
// come first among the query rows (in reverse order), then other rows; every shadow row's twin key
// points along its q and every shadow key along a real row's q, so a leak in either direction
// moves the output by far more than the tolerance.
Problem make_shadow_problem(const Shape& s, uint32_t seed, int twin_first, int count) {
    Problem p = make_problem(s, seed);
    p.shadow_first = s.n - count;
    p.shadow_twin_first = twin_first;
    p.shadow_count = count;
    std::vector<int32_t> rows;
    for (int k = count - 1; k >= 0; --k) rows.push_back(p.shadow_first + k);
    std::vector<int32_t> others(static_cast<std::size_t>(p.shadow_first));
    std::iota(others.begin(), others.end(), 0);
    std::shuffle(others.begin(), others.end(), std::mt19937(seed + 1));
    for (int32_t r : others) {
        if (static_cast<int>(rows.size()) == s.m) break;
        rows.push_back(r);
    }
    p.rows = rows;
    for (int k = 0; k < count; ++k) {
        const int shadow_row = count - 1 - k;  // the row at shadow column shadow_first + k
        align_key(p, p.k, shadow_row, twin_first + k, 0.5f);
        if (count + k < s.m) align_key(p, p.k, count + k, p.shadow_first + k, 0.5f);
    }
    return p;
}

TEST(GpuAttention, ShadowBlockHidesColumns) {
    DLM_REQUIRE_GPU();
    struct Case {
        Shape s;
        int twin_first, count;
        bool must_split;
    };
    for (const Case& c : {Case{{77, 77, 4, 2, 64}, 10, 16, false},      // every row; the block spans two tiles
                          Case{{90, 333, 8, 2, 128}, 100, 40, false},
                          Case{{21, 100, 2, 1, 256}, 30, 9, false},     // 32-column tiles
                          Case{{12, 1088, 4, 2, 128}, 500, 8, true}}) {  // few rows: split columns
        SCOPED_TRACE(describe(c.s) + " shadow count " + std::to_string(c.count));
        const Problem p = make_shadow_problem(c.s, 22, c.twin_first, c.count);
        const Reference ref = reference_attention(p, true);
        // Without the block's rule both the shadow rows and the real rows come out clearly different.
        Problem open = p;
        open.shadow_count = 0;
        const Reference ref_open = reference_attention(open, true);
        std::vector<int> shadow_rows(static_cast<std::size_t>(c.count)), real_rows;
        std::iota(shadow_rows.begin(), shadow_rows.end(), 0);
        for (int i = c.count; i < c.s.m; ++i) real_rows.push_back(i);
        ASSERT_GT(max_rel_error(pick_rows(ref_open.out, p.q_dim, shadow_rows), pick_rows(ref.out, p.q_dim, shadow_rows),
                                rms(ref.out)),
                  10 * kBf16Tol);
        ASSERT_GT(max_rel_error(pick_rows(ref_open.out, p.q_dim, real_rows), pick_rows(ref.out, p.q_dim, real_rows),
                                rms(ref.out)),
                  10 * kBf16Tol);

        const bool split = expect_attention_matches(p, true, ref);
        if (c.must_split) {
            EXPECT_TRUE(split) << "a dozen rows over 1088 columns should be split on any GPU";
        }
        if (c.s.m >= 16) expect_probs_match(p, ref);
    }
}

TEST(GpuCoverCorrection, EqualsSelfSeeingAttention) {
    DLM_REQUIRE_GPU();
    for (const Shape& s : {Shape{60, 333, 8, 2, 128}, Shape{40, 77, 4, 4, 64}}) {
        SCOPED_TRACE(describe(s));
        Problem p = make_problem(s, 11, 0.3);
        emphasise_seed_diagonals(p);
        std::vector<int32_t> seed_rows;
        std::vector<bool> is_seed(static_cast<std::size_t>(s.m), false);
        for (int i = 0; i < s.m; ++i)
            if (p.overridden[static_cast<std::size_t>(p.rows[static_cast<std::size_t>(i)])]) {
                seed_rows.push_back(i);
                is_seed[static_cast<std::size_t>(i)] = true;
            }
        ASSERT_GE(seed_rows.size(), 2u);
        seed_rows.push_back(2);  // not at an overridden position: the kernel must leave it alone

        // The shared override pass (every row sees K'/V' at the seed columns), then the correction.
        DeviceProblem d(p, false);
        dlm::cuda::launch_attention(d.args, nullptr);
        const Result before = download(p, d);
        const auto d_seeds = to_device(seed_rows);
        dlm::cuda::launch_cover_correction(d.args, d_seeds.get(), static_cast<int>(seed_rows.size()), nullptr);
        const Result corrected = download(p, d);

        const Result fresh = run_attention(p, true);
        const Reference ref = reference_attention(p, true);
        expect_outputs_close(corrected.out, fresh.out, "corrected versus self-seeing attention output");
        expect_lse_close(corrected.lse, fresh.lse, "corrected versus self-seeing attention lse");
        expect_outputs_close(corrected.out, ref.out, "corrected output versus reference");
        expect_lse_close(corrected.lse, ref.lse, "corrected lse versus reference");

        // The correction did real work on the seeds, and none on any other row.
        const std::vector<int> first_seeds = {0, 1};
        EXPECT_GT(max_rel_error(pick_rows(before.out, p.q_dim, first_seeds), pick_rows(ref.out, p.q_dim, first_seeds),
                                rms(ref.out)),
                  10 * kBf16Tol);
        for (int i = 0; i < s.m; ++i) {
            if (is_seed[static_cast<std::size_t>(i)]) continue;
            for (int c = 0; c < p.q_dim; ++c) {
                const std::size_t at = static_cast<std::size_t>(i) * p.q_dim + c;
                ASSERT_EQ(corrected.out[at], before.out[at]) << "non-seed row " << i << " changed";
            }
            for (int h = 0; h < s.n_heads; ++h) {
                const std::size_t at = static_cast<std::size_t>(i) * s.n_heads + h;
                ASSERT_EQ(corrected.lse[at], before.lse[at]) << "non-seed row " << i << " lse changed";
            }
        }
    }
}

TEST(GpuAttentionProbs, RowsSumToOneAndMatchReference) {
    DLM_REQUIRE_GPU();
    struct Case {
        Shape s;
        double override_fraction;
    };
    for (const Case& c : {Case{{40, 333, 8, 2, 128}, 0.3}, Case{{16, 77, 4, 4, 64}, 0.0}, Case{{10, 77, 2, 1, 256}, 0.3}}) {
        const Shape& s = c.s;
        SCOPED_TRACE(describe(s));
        Problem p = make_problem(s, 12, c.override_fraction);
        if (c.override_fraction > 0.0) emphasise_seed_diagonals(p);
        const Reference ref = reference_attention(p, true);

        DeviceProblem d(p, true);
        dlm::cuda::launch_attention(d.args, nullptr);
        dlm::cuda::DeviceBuffer<float> probs(static_cast<std::size_t>(s.m) * s.n, "test probs");
        dlm::cuda::launch_attention_probs(d.args, d.lse.get(), probs.get(), nullptr);
        const std::vector<float> got = to_host(probs, static_cast<std::size_t>(s.m) * s.n);

        expect_all_finite(got, "probabilities");
        EXPECT_LE(max_rel_error(got, ref.probs, 1.0 / s.n), kBf16Tol) << "probabilities";
        for (int i = 0; i < s.m; ++i) {
            double sum = 0.0;
            for (int j = 0; j < s.n; ++j) sum += got[static_cast<std::size_t>(i) * s.n + j];
            EXPECT_NEAR(sum, 1.0, 1e-3) << "row " << i;
        }
    }
}

TEST(GpuAttention, RejectsUnsupportedShapes) {
    DLM_REQUIRE_GPU();
    const Problem p = make_problem({4, 16, 4, 4, 64}, 13);
    DeviceProblem d(p, true);
    dlm::cuda::AttentionArgs bad = d.args;
    bad.head_dim = 300;
    EXPECT_THROW(dlm::cuda::launch_attention(bad, nullptr), dlm::Error);
    bad = d.args;
    bad.n_kv_heads = 3;
    EXPECT_THROW(dlm::cuda::launch_attention(bad, nullptr), dlm::Error);
    bad = d.args;
    bad.overridden = reinterpret_cast<const uint8_t*>(d.rows.get());  // a mask, but no override K/V
    bad.k_override = nullptr;
    EXPECT_THROW(dlm::cuda::launch_attention(bad, nullptr), dlm::Error);
    bad = d.args;
    bad.shadow_first = 14;  // columns 14..16 of 16
    bad.shadow_count = 3;
    EXPECT_THROW(dlm::cuda::launch_attention(bad, nullptr), dlm::Error);
    bad.shadow_first = 10;
    bad.shadow_twin_first = -1;
    EXPECT_THROW(dlm::cuda::launch_attention(bad, nullptr), dlm::Error);
    bad = d.args;
    bad.shadow_count = -2;
    EXPECT_THROW(dlm::cuda::launch_attention(bad, nullptr), dlm::Error);
}

}  // namespace

// The correction reads the attention's fp32 output: without one it is refused before anything is
// launched (checked on the host, no GPU needed; the pointers are never dereferenced).
TEST(CoverCorrectionArgs, RefusedWithoutTheFp32Output) {
    float host_f[4] = {};
    bf16 host_b[4] = {};
    uint8_t host_flags[4] = {};
    int32_t host_i[4] = {};
    dlm::cuda::AttentionArgs a;
    a.q = host_f;
    a.q_stride = 4;
    a.k_cache = a.v_cache = a.k_override = a.v_override = host_b;
    a.overridden = host_flags;
    a.row_pos = host_i;
    a.m = 1;
    a.n = 1;
    a.n_heads = a.n_kv_heads = 1;
    a.head_dim = 4;
    a.scale = 0.5f;
    a.out = host_b;
    a.out_stride = 4;
    a.lse = host_f;
    try {
        dlm::cuda::launch_cover_correction(a, host_i, 1, nullptr);
        FAIL() << "a correction without the fp32 output was accepted";
    } catch (const dlm::Error& e) {
        EXPECT_NE(std::string(e.what()).find("fp32 output"), std::string::npos) << e.what();
    }
}
