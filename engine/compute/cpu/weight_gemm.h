#pragma once
// Y = X · Wᵀ against a weight matrix as the backend holds it. A matrix packed at load into panels
// (panel_gemm.h) is read in place, its panels shared among the pool's threads. Otherwise it is cut
// into tiles of rows that the pool's threads take in parallel, each with a single-threaded sgemm:
// fp32 tiles go straight to sgemm, BF16/F16 tiles are first widened to fp32 in the thread's own
// buffer, so a 16 GB BF16 checkpoint is computed from its memory map without a second, 32 GB copy.
#include <cstddef>
#include <vector>

#include "compute/cpu/cpu_thread_pool.h"
#include "model/dtype.h"

namespace dlm::cpu {

// W [rows, cols] (the PyTorch Linear layout): packed panels, fp32 data, or stored BF16/F16 data to
// widen (the first that is set).
struct WeightMatrix {
    const float* panels = nullptr;     // packed at load by pack_panels, `panel_width` columns a panel
    int panel_width = 0;
    const float* f32 = nullptr;        // set when the matrix is fp32 (mapped or converted at load)
    const std::byte* stored = nullptr;  // otherwise its stored elements (may be unaligned)
    DType dtype = DType::F32;
    int rows = 0;
    int cols = 0;
};

// Rows per tile for a matrix of `cols` columns: a tile's fp32 form stays within a few MB. sgemm's
// last bits depend on how the output columns are cut, so the cut depends on the shape alone: a
// matrix gives the same bits whether it is fp32 or widened, on any number of threads.
int weight_tile_rows(int cols);

class WeightGemm {
public:
    // Makes OpenBLAS single-threaded for the whole process: the pool owns the parallelism (weight
    // tiles here, attention heads and rows in the backend) and its threads call sgemm side by side;
    // OpenBLAS's own threads would spin beside them.
    explicit WeightGemm(ThreadPool& pool);

    // Y[m, w.rows] (row stride w.rows) = X[m, w.cols] · Wᵀ, plus Y when `accumulate`.
    void xwt(const float* x, int m, const WeightMatrix& w, float* y, bool accumulate);

private:
    ThreadPool& pool_;
    std::vector<std::vector<float>> tiles_;  // one widening buffer per thread
};

}  // namespace dlm::cpu
