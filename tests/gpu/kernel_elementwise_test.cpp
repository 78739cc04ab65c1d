// The row-wise and elementwise kernels of the CUDA forward against the CPU reference
// (compute/cpu_kernels.h) on random data, at LLaDA-like widths (vectorised paths) and at awkward
// ones (odd widths, row strides that break 16-byte alignment: the scalar paths).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <random>
#include <type_traits>
#include <vector>

#include "bias_add.cuh"
#include "compute/cpu/cpu_kernels.h"
#include "embedding_gather.cuh"
#include "gather_rows.cuh"
#include "gpu_test_support.h"
#include "kv_cache_write.cuh"
#include "rms_norm.cuh"
#include "rope.cuh"
#include "swiglu.cuh"

namespace dlm::gpu_test {
namespace {

std::vector<float> random_normal(std::size_t n, float scale, uint32_t seed) {
    std::mt19937 gen(seed);
    std::normal_distribution<float> dist(0.0f, scale);
    std::vector<float> v(n);
    for (auto& x : v) x = dist(gen);
    return v;
}

std::vector<int32_t> random_ids(std::size_t n, int32_t below, uint32_t seed) {
    std::mt19937 gen(seed);
    std::uniform_int_distribution<int32_t> dist(0, below - 1);
    std::vector<int32_t> v(n);
    for (auto& x : v) x = dist(gen);
    return v;
}

// `n` distinct values out of [0, below), shuffled (canvas positions of computed rows).
std::vector<int32_t> distinct_ids(int n, int32_t below, uint32_t seed) {
    std::vector<int32_t> all(static_cast<std::size_t>(below));
    std::iota(all.begin(), all.end(), 0);
    std::shuffle(all.begin(), all.end(), std::mt19937(seed));
    all.resize(static_cast<std::size_t>(n));
    return all;
}

bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// A bf16 kernel output against its fp32 reference: within kBf16Tol of it, and equal to the
// reference rounded to bf16 except for the rare element whose fp32 value sat on a rounding
// boundary (the kernel's fp32 math may differ from the reference's in the last bits).
void expect_bf16_matches(const std::vector<float>& gpu, const std::vector<float>& ref) {
    ASSERT_EQ(gpu.size(), ref.size());
    EXPECT_LT(max_rel_error(gpu, ref, std::max(rms(ref), 1e-6)), kBf16Tol);
    const std::vector<float> ref_bf16 = round_bf16(ref);
    std::size_t differ = 0;
    for (std::size_t i = 0; i < gpu.size(); ++i) {
        if (gpu[i] == ref_bf16[i]) continue;
        ++differ;
        // At most one bf16 step (2^-7 relative, 2^-8 per ulp at the top of a binade) away.
        EXPECT_LE(std::abs(gpu[i] - ref_bf16[i]), std::abs(ref_bf16[i]) * 0x1.0p-7f + 1e-30f) << "element " << i;
    }
    EXPECT_LE(differ, gpu.size() / 100 + 1) << "too many elements off the reference's bf16 rounding";
}

// ---------------------------------------------------------------------------------------------

void check_embedding_gather(int vocab, int d, int rows, uint32_t seed) {
    SCOPED_TRACE(testing::Message() << "vocab " << vocab << " d " << d << " rows " << rows);
    const auto table = to_bf16(random_normal(static_cast<std::size_t>(vocab) * d, 0.05f, seed));
    const auto tokens = random_ids(static_cast<std::size_t>(rows), vocab, seed + 1);
    auto d_table = to_device(table);
    auto d_tokens = to_device(tokens);
    cuda::DeviceBuffer<float> d_x(static_cast<std::size_t>(rows) * d);
    cuda::launch_embedding_gather(d_table.get(), d_tokens.get(), rows, d, d_x.get(), nullptr);
    const auto x = to_host(d_x, static_cast<std::size_t>(rows) * d);
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < d; ++c) {
            const float want = __bfloat162float(table[static_cast<std::size_t>(tokens[r]) * d + c]);
            ASSERT_TRUE(same_bits(x[static_cast<std::size_t>(r) * d + c], want)) << "row " << r << " col " << c;
        }
}

TEST(GpuKernelEmbeddingGather, MatchesTableRows) {
    DLM_REQUIRE_GPU();
    check_embedding_gather(300, 4096, 37, 1);  // 16-byte vector path
    check_embedding_gather(50, 37, 37, 2);     // odd width: scalar path
    check_embedding_gather(50, 12, 1, 3);      // multiple of 4, not of 8
}

// ---------------------------------------------------------------------------------------------

void check_rms_norm(int rows, int d, uint32_t seed) {
    SCOPED_TRACE(testing::Message() << "rows " << rows << " d " << d);
    const float eps = 1e-5f;
    auto x = random_normal(static_cast<std::size_t>(rows) * d, 2.0f, seed);
    // One row far from unit scale, so a missing normalisation cannot pass.
    for (int c = 0; c < d; ++c) x[c] *= 40.0f;
    auto w = random_normal(static_cast<std::size_t>(d), 0.3f, seed + 1);
    for (auto& v : w) v += 1.0f;
    std::vector<float> ref(x.size());
    cpu::rms_norm(x.data(), rows, d, w.data(), static_cast<double>(eps), ref.data());

    auto d_x = to_device(x);
    auto d_w = to_device(w);
    cuda::DeviceBuffer<__nv_bfloat16> d_out(x.size());
    cuda::launch_rms_norm(d_x.get(), rows, d, d_w.get(), eps, d_out.get(), nullptr);
    const auto out = to_float(to_host(d_out, x.size()));
    expect_bf16_matches(out, ref);
}

TEST(GpuKernelRmsNorm, MatchesCpuReference) {
    DLM_REQUIRE_GPU();
    check_rms_norm(37, 4096, 10);  // LLaDA width, vector path
    check_rms_norm(1, 4096, 11);
    check_rms_norm(37, 37, 12);    // odd width: scalar path, one partial warp
    check_rms_norm(5, 130, 13);    // even but not a multiple of 4
    check_rms_norm(3, 5000, 14);   // more columns than threads, not a multiple of the block
}

// ---------------------------------------------------------------------------------------------

// inv_freq as the CPU RopeTable builds it (theta^(-2i/hd) in double, rounded to fp32).
std::vector<float> rope_inv_freq(int head_dim, double theta) {
    std::vector<float> f(static_cast<std::size_t>(head_dim / 2));
    for (int i = 0; i < head_dim / 2; ++i) f[i] = static_cast<float>(1.0 / std::pow(theta, (2.0 * i) / head_dim));
    return f;
}

void check_rope(int rows, int q_heads, int k_heads, int v_heads, int head_dim, uint32_t seed) {
    SCOPED_TRACE(testing::Message() << "rows " << rows << " heads " << q_heads << "/" << k_heads << " hd " << head_dim);
    const double theta = 500000.0;
    const int rotated = (q_heads + k_heads) * head_dim;
    const int stride = rotated + v_heads * head_dim;
    const auto qkv = random_normal(static_cast<std::size_t>(rows) * stride, 1.0f, seed);
    const auto positions = random_ids(static_cast<std::size_t>(rows), 4001, seed + 1);  // up to 4000
    const auto inv_freq = rope_inv_freq(head_dim, theta);

    // Reference: the CPU table on the packed Q|K heads (its apply wants row stride heads * hd).
    std::vector<float> ref(static_cast<std::size_t>(rows) * rotated);
    for (int r = 0; r < rows; ++r)
        std::copy_n(qkv.begin() + static_cast<std::ptrdiff_t>(r) * stride, rotated,
                    ref.begin() + static_cast<std::ptrdiff_t>(r) * rotated);
    cpu::RopeTable table(head_dim, theta);
    table.ensure(4001);
    table.apply(ref.data(), rows, q_heads + k_heads, positions.data());

    auto d_qkv = to_device(qkv);
    auto d_pos = to_device(positions);
    auto d_freq = to_device(inv_freq);
    cuda::launch_rope(d_qkv.get(), rows, stride, q_heads, k_heads, head_dim, d_pos.get(), d_freq.get(), nullptr);
    const auto out = to_host(d_qkv, qkv.size());

    std::vector<float> got(ref.size());
    for (int r = 0; r < rows; ++r) {
        std::copy_n(out.begin() + static_cast<std::ptrdiff_t>(r) * stride, rotated,
                    got.begin() + static_cast<std::ptrdiff_t>(r) * rotated);
        for (int c = rotated; c < stride; ++c) {  // V heads are not rotated
            const std::size_t i = static_cast<std::size_t>(r) * stride + c;
            ASSERT_TRUE(same_bits(out[i], qkv[i])) << "V changed at row " << r << " col " << c;
        }
    }
    EXPECT_LT(max_rel_error(got, ref, rms(ref)), kFp32Tol);
}

TEST(GpuKernelRope, MatchesCpuRopeTable) {
    DLM_REQUIRE_GPU();
    check_rope(37, 4, 4, 4, 128, 20);  // LLaDA head size (MHA), float4 path
    check_rope(1, 4, 4, 4, 128, 21);
    check_rope(37, 4, 2, 2, 64, 22);   // GQA-style K heads
    check_rope(37, 3, 1, 1, 10, 23);   // hd/2 odd: scalar path
    check_rope(5, 2, 1, 1, 9, 24);     // odd head size: the last element of a head stays put
    check_rope(6, 2, 1, 0, 20, 25);    // hd/2 % 4 != 0, no V columns
    check_rope(6, 2, 2, 0, 24, 26);    // smallest float4 case, no V columns
}

// ---------------------------------------------------------------------------------------------

void check_bias_add(int rows, int cols, int stride, uint32_t seed) {
    SCOPED_TRACE(testing::Message() << "rows " << rows << " cols " << cols << " stride " << stride);
    const auto y = random_normal(static_cast<std::size_t>(rows) * stride, 1.0f, seed);
    const auto bias = random_normal(static_cast<std::size_t>(cols), 0.5f, seed + 1);
    // Reference: the CPU add_bias on the packed columns it covers.
    std::vector<float> ref(static_cast<std::size_t>(rows) * cols);
    for (int r = 0; r < rows; ++r)
        std::copy_n(y.begin() + static_cast<std::ptrdiff_t>(r) * stride, cols, ref.begin() + static_cast<std::ptrdiff_t>(r) * cols);
    cpu::add_bias(ref.data(), rows, cols, bias.data());

    auto d_y = to_device(y);
    auto d_bias = to_device(bias);
    cuda::launch_bias_add(d_y.get(), rows, cols, stride, d_bias.get(), nullptr);
    const auto out = to_host(d_y, y.size());
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < stride; ++c) {
            const std::size_t i = static_cast<std::size_t>(r) * stride + c;
            const float want = c < cols ? ref[static_cast<std::size_t>(r) * cols + c] : y[i];
            ASSERT_TRUE(same_bits(out[i], want)) << "row " << r << " col " << c;
        }
}

TEST(GpuKernelBiasAdd, MatchesCpuAddBias) {
    DLM_REQUIRE_GPU();
    check_bias_add(37, 4096 + 2 * 512, 4096 + 2 * 512, 30);  // Qwen2-style fused QKV bias, vector path
    check_bias_add(37, 64, 72, 31);                          // strided, vector path
    check_bias_add(37, 37, 41, 32);                          // odd: scalar path
    check_bias_add(1, 8, 10, 33);                            // stride breaks 16-byte alignment
}

// ---------------------------------------------------------------------------------------------

void check_swiglu(int rows, int ff, uint32_t seed) {
    SCOPED_TRACE(testing::Message() << "rows " << rows << " ff " << ff);
    const auto gate_up = random_normal(static_cast<std::size_t>(rows) * 2 * ff, 3.0f, seed);
    std::vector<float> ref(static_cast<std::size_t>(rows) * ff);
    for (int r = 0; r < rows; ++r) {
        const float* g = gate_up.data() + static_cast<std::size_t>(r) * 2 * ff;
        float* o = ref.data() + static_cast<std::size_t>(r) * ff;
        std::copy_n(g, ff, o);
        cpu::swiglu(o, g + ff, static_cast<std::size_t>(ff));
    }
    auto d_gate_up = to_device(gate_up);
    cuda::DeviceBuffer<__nv_bfloat16> d_out(ref.size());
    cuda::launch_swiglu(d_gate_up.get(), rows, ff, d_out.get(), nullptr);
    expect_bf16_matches(to_float(to_host(d_out, ref.size())), ref);
}

TEST(GpuKernelSwiglu, MatchesCpuSwiglu) {
    DLM_REQUIRE_GPU();
    check_swiglu(37, 12288, 40);  // LLaDA ff, vector path
    check_swiglu(1, 12288, 41);
    check_swiglu(37, 37, 42);     // odd: scalar path
    check_swiglu(3, 6, 43);       // even, not a multiple of 4
}

// ---------------------------------------------------------------------------------------------

void check_kv_cache_write(int rows, int q_dim, int kv_dim, int cache_positions, uint32_t seed) {
    SCOPED_TRACE(testing::Message() << "rows " << rows << " q_dim " << q_dim << " kv_dim " << kv_dim);
    const int stride = q_dim + 2 * kv_dim;
    const int k_offset = q_dim, v_offset = q_dim + kv_dim;
    const auto qkv = random_normal(static_cast<std::size_t>(rows) * stride, 1.0f, seed);
    const auto positions = distinct_ids(rows, cache_positions, seed + 1);
    const std::size_t cache_size = static_cast<std::size_t>(cache_positions) * kv_dim;
    const auto k_before = to_bf16(random_normal(cache_size, 1.0f, seed + 2));
    const auto v_before = to_bf16(random_normal(cache_size, 1.0f, seed + 3));

    auto d_qkv = to_device(qkv);
    auto d_pos = to_device(positions);
    auto d_k = to_device(k_before);
    auto d_v = to_device(v_before);
    cuda::launch_kv_cache_write(d_qkv.get(), rows, stride, k_offset, v_offset, kv_dim, d_pos.get(), d_k.get(),
                                d_v.get(), nullptr);
    const auto k_after = to_float(to_host(d_k, cache_size));
    const auto v_after = to_float(to_host(d_v, cache_size));

    // Expected cache: the old contents, with each computed row's K/V (rounded to bf16) at its position.
    auto k_want = to_float(k_before), v_want = to_float(v_before);
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < kv_dim; ++c) {
            const std::size_t dst = static_cast<std::size_t>(positions[r]) * kv_dim + c;
            const std::size_t src = static_cast<std::size_t>(r) * stride;
            k_want[dst] = __bfloat162float(__float2bfloat16(qkv[src + k_offset + c]));
            v_want[dst] = __bfloat162float(__float2bfloat16(qkv[src + v_offset + c]));
        }
    for (std::size_t i = 0; i < cache_size; ++i) {
        ASSERT_TRUE(same_bits(k_after[i], k_want[i])) << "K cache element " << i;
        ASSERT_TRUE(same_bits(v_after[i], v_want[i])) << "V cache element " << i;
    }
}

TEST(GpuKernelKvCacheWrite, ScattersRowsAndKeepsTheRest) {
    DLM_REQUIRE_GPU();
    check_kv_cache_write(37, 512, 512, 300, 50);  // vector path
    check_kv_cache_write(1, 128, 128, 4000, 51);
    check_kv_cache_write(37, 37, 37, 64, 52);     // odd offsets and width: scalar path
    check_kv_cache_write(7, 256, 6, 9, 53);       // kv_dim not a multiple of 4
}

// ---------------------------------------------------------------------------------------------

template <typename T>
void check_gather_rows(int source_rows, int rows, int cols, uint32_t seed) {
    SCOPED_TRACE(testing::Message() << "rows " << rows << " cols " << cols << " element " << sizeof(T));
    const auto values = random_normal(static_cast<std::size_t>(source_rows) * cols, 1.0f, seed);
    std::vector<T> in(values.size());
    for (std::size_t i = 0; i < in.size(); ++i) {
        if constexpr (std::is_same_v<T, float>)
            in[i] = values[i];
        else
            in[i] = __float2bfloat16(values[i]);
    }
    const auto index = random_ids(static_cast<std::size_t>(rows), source_rows, seed + 1);  // repeats allowed

    auto d_in = to_device(in);
    auto d_index = to_device(index);
    cuda::DeviceBuffer<T> d_out(static_cast<std::size_t>(rows) * cols);
    cuda::launch_gather_rows(d_in.get(), d_index.get(), rows, cols, d_out.get(), nullptr);
    const auto out = to_host(d_out, static_cast<std::size_t>(rows) * cols);
    for (int r = 0; r < rows; ++r)
        ASSERT_EQ(std::memcmp(&out[static_cast<std::size_t>(r) * cols], &in[static_cast<std::size_t>(index[r]) * cols],
                              sizeof(T) * cols),
                  0)
            << "row " << r << " (source row " << index[r] << ")";
}

TEST(GpuKernelGatherRows, CopiesSelectedRows) {
    DLM_REQUIRE_GPU();
    for (int cols : {4096, 37, 1, 6, 2}) {  // 16-, 8-, 4- and 2-byte word paths
        check_gather_rows<__nv_bfloat16>(60, 37, cols, 60 + cols);
        check_gather_rows<float>(60, 37, cols, 61 + cols);
    }
    check_gather_rows<__nv_bfloat16>(10, 1, 4096, 62);
}

// ---------------------------------------------------------------------------------------------

TEST(GpuKernelElementwise, EmptyInputsLaunchNothing) {
    DLM_REQUIRE_GPU();
    // rows = 0 (or zero width) must be a no-op even with null pointers: no launch, no error.
    cuda::launch_embedding_gather(nullptr, nullptr, 0, 4096, nullptr, nullptr);
    cuda::launch_rms_norm(nullptr, 0, 4096, nullptr, 1e-5f, nullptr, nullptr);
    cuda::launch_rope(nullptr, 0, 384, 1, 1, 128, nullptr, nullptr, nullptr);
    cuda::launch_bias_add(nullptr, 0, 64, 64, nullptr, nullptr);
    cuda::launch_swiglu(nullptr, 0, 12288, nullptr, nullptr);
    cuda::launch_kv_cache_write(nullptr, 0, 384, 128, 256, 128, nullptr, nullptr, nullptr, nullptr);
    cuda::launch_gather_rows(static_cast<const float*>(nullptr), nullptr, 0, 64, nullptr, nullptr);
    cuda::launch_gather_rows(static_cast<const __nv_bfloat16*>(nullptr), nullptr, 0, 64, nullptr, nullptr);
    cuda::launch_rms_norm(nullptr, 3, 0, nullptr, 1e-5f, nullptr, nullptr);
    cuda::launch_gather_rows(static_cast<const float*>(nullptr), nullptr, 3, 0, nullptr, nullptr);
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

}  // namespace
}  // namespace dlm::gpu_test
