#include "compute/cpu/panel_gemm.h"

#include <algorithm>
#include <atomic>
#include <string>
#include <vector>

#include "util/error.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define DLM_PANEL_GEMM_X86 1
#endif

namespace dlm::cpu {

namespace {

enum class Isa { None, Avx2Fma, Avx512 };

std::string_view isa_name(Isa isa) {
    switch (isa) {
        case Isa::Avx512: return "avx512f";
        case Isa::Avx2Fma: return "avx2+fma";
        case Isa::None: break;
    }
    return "none";
}

std::vector<Isa> detect_isas() {
    std::vector<Isa> isas{Isa::None};
#ifdef DLM_PANEL_GEMM_X86
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
        isas.push_back(Isa::Avx2Fma);
        if (__builtin_cpu_supports("avx512f")) isas.push_back(Isa::Avx512);
    }
#endif
    return isas;
}

// What this CPU can run, "none" first, fastest last (detected once).
const std::vector<Isa>& supported_isas() {
    static const std::vector<Isa> isas = detect_isas();
    return isas;
}

std::atomic<Isa>& current_isa() {
    static std::atomic<Isa> current{supported_isas().back()};
    return current;
}

Isa isa() { return current_isa().load(std::memory_order_relaxed); }

#ifdef DLM_PANEL_GEMM_X86

// One block of R ≤ 8 rows against one 32-column panel: 2R accumulators of 16 lanes, the x value
// broadcast from memory. `cols` < 32 only in the last panel, stored under a mask.
template <int R>
[[gnu::target("avx512f")]] void block_avx512(const float* x, int ldx, const float* panel, int k, float* y, int ldy,
                                            int cols, bool accumulate) {
    __m512 lo[R], hi[R];
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) lo[r] = hi[r] = _mm512_setzero_ps();
    for (int t = 0; t < k; ++t) {
        const __m512 w0 = _mm512_loadu_ps(panel + static_cast<std::size_t>(t) * 32);
        const __m512 w1 = _mm512_loadu_ps(panel + static_cast<std::size_t>(t) * 32 + 16);
#pragma GCC unroll 8
        for (int r = 0; r < R; ++r) {
            const __m512 a = _mm512_set1_ps(x[static_cast<std::size_t>(r) * ldx + t]);
            lo[r] = _mm512_fmadd_ps(a, w0, lo[r]);
            hi[r] = _mm512_fmadd_ps(a, w1, hi[r]);
        }
    }
    const __mmask16 m0 = cols >= 16 ? __mmask16(0xffff) : __mmask16((1u << cols) - 1);
    const __mmask16 m1 = cols >= 32 ? __mmask16(0xffff) : cols > 16 ? __mmask16((1u << (cols - 16)) - 1) : __mmask16(0);
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
        float* out = y + static_cast<std::size_t>(r) * ldy;
        __m512 v0 = lo[r], v1 = hi[r];
        if (accumulate) {
            v0 = _mm512_add_ps(v0, _mm512_maskz_loadu_ps(m0, out));
            v1 = _mm512_add_ps(v1, _mm512_maskz_loadu_ps(m1, out + 16));
        }
        _mm512_mask_storeu_ps(out, m0, v0);
        _mm512_mask_storeu_ps(out + 16, m1, v1);
    }
}

// The same for AVX2: R ≤ 6 rows against a 16-column panel (12 of the 16 ymm registers).
template <int R>
[[gnu::target("avx2,fma")]] void block_avx2(const float* x, int ldx, const float* panel, int k, float* y, int ldy,
                                           int cols, bool accumulate) {
    __m256 lo[R], hi[R];
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) lo[r] = hi[r] = _mm256_setzero_ps();
    for (int t = 0; t < k; ++t) {
        const __m256 w0 = _mm256_loadu_ps(panel + static_cast<std::size_t>(t) * 16);
        const __m256 w1 = _mm256_loadu_ps(panel + static_cast<std::size_t>(t) * 16 + 8);
#pragma GCC unroll 8
        for (int r = 0; r < R; ++r) {
            const __m256 a = _mm256_broadcast_ss(x + static_cast<std::size_t>(r) * ldx + t);
            lo[r] = _mm256_fmadd_ps(a, w0, lo[r]);
            hi[r] = _mm256_fmadd_ps(a, w1, hi[r]);
        }
    }
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
        float* out = y + static_cast<std::size_t>(r) * ldy;
        if (cols == 16) {
            __m256 v0 = lo[r], v1 = hi[r];
            if (accumulate) {
                v0 = _mm256_add_ps(v0, _mm256_loadu_ps(out));
                v1 = _mm256_add_ps(v1, _mm256_loadu_ps(out + 8));
            }
            _mm256_storeu_ps(out, v0);
            _mm256_storeu_ps(out + 8, v1);
        } else {  // the last, partial panel: the same sums, written lane by lane
            alignas(32) float lanes[16];
            _mm256_store_ps(lanes, lo[r]);
            _mm256_store_ps(lanes + 8, hi[r]);
            for (int j = 0; j < cols; ++j) out[j] = accumulate ? lanes[j] + out[j] : lanes[j];
        }
    }
}

using Block = void (*)(const float*, int, const float*, int, float*, int, int, bool);

template <int Rows>
void run_panels(const Block (&blocks)[Rows], int width, const float* x, int m, const float* panels, int n, int k,
                std::size_t first, std::size_t last, float* y, int ldy, bool accumulate) {
    for (std::size_t p = first; p < last; ++p) {
        const float* panel = panels + p * static_cast<std::size_t>(k) * width;
        const int col0 = static_cast<int>(p) * width, cols = std::min(width, n - col0);
        for (int r0 = 0; r0 < m; r0 += Rows) {
            const int rows = std::min(Rows, m - r0);
            blocks[rows - 1](x + static_cast<std::size_t>(r0) * k, k, panel, k,
                             y + static_cast<std::size_t>(r0) * ldy + col0, ldy, cols, accumulate);
        }
    }
}

constexpr Block kAvx512Blocks[8] = {block_avx512<1>, block_avx512<2>, block_avx512<3>, block_avx512<4>,
                                    block_avx512<5>, block_avx512<6>, block_avx512<7>, block_avx512<8>};
constexpr Block kAvx2Blocks[6] = {block_avx2<1>, block_avx2<2>, block_avx2<3>,
                                  block_avx2<4>, block_avx2<5>, block_avx2<6>};

#endif  // DLM_PANEL_GEMM_X86

}  // namespace

int panel_width() {
    switch (isa()) {
        case Isa::Avx512: return 32;
        case Isa::Avx2Fma: return 16;
        case Isa::None: break;
    }
    return 0;
}

std::string_view panel_isa() { return isa_name(isa()); }

std::vector<std::string_view> panel_isas() {
    std::vector<std::string_view> names;
    for (Isa i : supported_isas()) names.push_back(isa_name(i));
    return names;
}

bool use_panel_isa(std::string_view name) {
    const std::vector<Isa>& isas = supported_isas();
    for (Isa i : isas)
        if (isa_name(i) == name || (name.empty() && i == isas.back())) {
            current_isa().store(i, std::memory_order_relaxed);
            return true;
        }
    return false;
}

std::size_t packed_floats(int rows, int cols, int width) {
    const std::size_t panels = static_cast<std::size_t>((rows + width - 1) / width);
    return panels * static_cast<std::size_t>(cols) * static_cast<std::size_t>(width);
}

void pack_panels(DType dtype, const std::byte* w, int rows, int cols, int width, std::size_t first, std::size_t last,
                 float* out) {
    const std::size_t k = static_cast<std::size_t>(cols), esize = dtype_size(dtype);
    std::vector<float> row(k);
    for (std::size_t p = first; p < last; ++p) {
        float* panel = out + p * k * static_cast<std::size_t>(width);
        for (int lane = 0; lane < width; ++lane) {
            const int j = static_cast<int>(p) * width + lane;
            if (j < rows) convert_to_f32(dtype, w + static_cast<std::size_t>(j) * k * esize, row.data(), k);
            else std::fill(row.begin(), row.end(), 0.0f);
            for (std::size_t t = 0; t < k; ++t) panel[t * static_cast<std::size_t>(width) + lane] = row[t];
        }
    }
}

void panel_gemm(const float* x, int m, const float* panels, int width, int rows, int cols, std::size_t first,
                std::size_t last, float* y, int ldy, bool accumulate) {
    // The kernel follows the width the matrix was packed at; the CPU must run it.
    const std::vector<Isa>& isas = supported_isas();
    const Isa needed = width == 32 ? Isa::Avx512 : width == 16 ? Isa::Avx2Fma : Isa::None;
    if (needed == Isa::None || std::find(isas.begin(), isas.end(), needed) == isas.end())
        throw Error("panel_gemm: panels " + std::to_string(width) + " columns wide need a kernel this CPU cannot run");
#ifdef DLM_PANEL_GEMM_X86
    if (needed == Isa::Avx512)
        return run_panels(kAvx512Blocks, 32, x, m, panels, rows, cols, first, last, y, ldy, accumulate);
    return run_panels(kAvx2Blocks, 16, x, m, panels, rows, cols, first, last, y, ldy, accumulate);
#else
    (void)x, (void)m, (void)panels, (void)rows, (void)cols, (void)first, (void)last, (void)y, (void)ldy;
    (void)accumulate;
#endif
}

}  // namespace dlm::cpu
