#include "compute/cpu/weight_gemm.h"

#include "compute/cpu/panel_gemm.h"

#include <cblas.h>

#include <algorithm>

namespace dlm::cpu {

namespace {
constexpr std::size_t kTileBytes = std::size_t(4) << 20;  // fp32 bytes of one tile at most
constexpr int kMaxTileRows = 512;  // so that mid-size matrices still split across threads
}  // namespace

WeightGemm::WeightGemm(ThreadPool& pool) : pool_(pool), tiles_(static_cast<std::size_t>(pool.size())) {
    openblas_set_num_threads(1);
}

int weight_tile_rows(int cols) {
    const std::size_t per_row = static_cast<std::size_t>(std::max(cols, 1)) * sizeof(float);
    return static_cast<int>(std::clamp<std::size_t>(kTileBytes / per_row, 16, kMaxTileRows));
}

void WeightGemm::xwt(const float* x, int m, const WeightMatrix& w, float* y, bool accumulate) {
    if (m == 0 || w.rows == 0) return;
    const int k = w.cols, n = w.rows;
    if (w.panels) {
        const int width = w.panel_width;
        const std::size_t panels = static_cast<std::size_t>((n + width - 1) / width);
        pool_.parallel_for(panels, 1, [&](int, std::size_t first, std::size_t last) {
            panel_gemm(x, m, w.panels, width, n, k, first, last, y, n, accumulate);
        });
        return;
    }
    const int step = weight_tile_rows(k);
    const float beta = accumulate ? 1.0f : 0.0f;
    const std::size_t esize = w.f32 ? sizeof(float) : dtype_size(w.dtype);
    const std::size_t tiles = static_cast<std::size_t>((n + step - 1) / step);
    pool_.parallel_for(tiles, 1, [&](int thread, std::size_t first, std::size_t last) {
        std::vector<float>& buffer = tiles_[static_cast<std::size_t>(thread)];
        for (std::size_t t = first; t < last; ++t) {
            const int r0 = static_cast<int>(t) * step, rows = std::min(step, n - r0);
            const float* tile = nullptr;
            if (w.f32) {
                tile = w.f32 + static_cast<std::size_t>(r0) * k;
            } else {
                const std::size_t count = static_cast<std::size_t>(rows) * k;
                buffer.resize(count);
                convert_to_f32(w.dtype, w.stored + static_cast<std::size_t>(r0) * k * esize, buffer.data(), count);
                tile = buffer.data();
            }
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, m, rows, k, 1.0f, x, k, tile, k, beta, y + r0, n);
        }
    });
}

}  // namespace dlm::cpu
