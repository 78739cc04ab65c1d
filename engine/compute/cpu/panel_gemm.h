#pragma once
// Weight matrices packed once at load into column panels, and the GEMM that reads them as they lie.
//
// sgemm packs its operands into its own panel layout on every call; for the small models that fit
// in memory as fp32 that packing was 12 % of a SureLock decode of the embedded model (one thread)
// and did not shrink with the rows computed, so it kept SureLock's wall time from falling with its
// FLOPs. Packed at load, a product reads each panel straight into registers.
//
// A panel holds `width` output columns (rows of W): for every k, their `width` values side by side.
// Each output element is one chain of fused multiply-adds in k order, the same whichever rows,
// panels or threads share the call: a row's result does not depend on the batch it is computed in.
#include <cstddef>
#include <string_view>
#include <vector>

#include "model/dtype.h"

namespace dlm::cpu {

// Output columns per panel on this CPU: 32 with AVX-512F, 16 with AVX2 and FMA, 0 where neither
// exists (WeightGemm then calls sgemm).
int panel_width();

// The longest rows (input width) a matrix may have to be packed. A panel is read whole for every
// block of rows; up to 1024 columns (128 KB a panel) it stays in cache: at the embedded models'
// shapes the products measured faster than sgemm for up to 200 rows and within 8 % of it at 400.
// At 2048–8192 columns they measured 0–25 % slower than sgemm for 64–320 rows: those matrices keep
// sgemm (a k-blocked kernel would lift the limit).
constexpr int kPanelMaxCols = 1024;

// The instruction set panel_gemm runs: by default the fastest this CPU has, "avx512f", "avx2+fma",
// else "none".
std::string_view panel_isa();
// The instruction sets this CPU can run, "none" first.
std::vector<std::string_view> panel_isas();
// Packs at the named instruction set's width ("" = the fastest) where this CPU has it, so that
// tests cover each kernel; false, and nothing changed, otherwise. Matrices packed before keep their
// width and the kernel of that width. Not for use while weights are being packed.
bool use_panel_isa(std::string_view isa);

// Floats that W [rows, cols] takes packed `width` columns a panel (the last panel zero-padded).
std::size_t packed_floats(int rows, int cols, int width);

// Packs panels [first, last) of W [rows, cols] (row-major, elements as stored in `dtype`) into
// `out`, the start of the whole packed matrix; callers split the panels among threads.
void pack_panels(DType dtype, const std::byte* w, int rows, int cols, int width, std::size_t first, std::size_t last,
                 float* out);

// Y[m, rows] (row stride `ldy`) = X[m, cols] · Wᵀ, plus Y when `accumulate`, for the output
// columns of panels [first, last) of W [rows, cols] packed by pack_panels at `width` (32 runs the
// AVX-512 kernel, 16 the AVX2 one; a width this CPU cannot run is a dlm::Error).
void panel_gemm(const float* x, int m, const float* panels, int width, int rows, int cols, std::size_t first,
                std::size_t last, float* y, int ldy, bool accumulate);

}  // namespace dlm::cpu
