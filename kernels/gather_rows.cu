#include "gather_rows.cuh"

#include "cuda_check.h"
#include "launch_shape.cuh"

namespace dlm::cuda {

namespace {

// A row copy is a byte copy: it moves `Word`s, the widest unit both layouts allow.
template <typename Word>
__global__ void gather_rows_kernel(const Word* __restrict__ in, const int32_t* __restrict__ index, int rows,
                                   int words_per_row, Word* __restrict__ out) {
    for (int r = blockIdx.y; r < rows; r += gridDim.y) {
        const Word* src = in + static_cast<std::size_t>(index[r]) * words_per_row;
        Word* dst = out + static_cast<std::size_t>(r) * words_per_row;
        for (int c = blockIdx.x * blockDim.x + threadIdx.x; c < words_per_row; c += gridDim.x * blockDim.x)
            dst[c] = src[c];
    }
}

template <typename Word>
void launch_gather_words(const void* in, const int32_t* index, int rows, std::size_t row_bytes, void* out,
                         cudaStream_t stream) {
    const int words = static_cast<int>(row_bytes / sizeof(Word));
    const int threads = warp_multiple_threads(words);
    const dim3 grid(capped_blocks(words, threads), std::min(rows, kMaxGridY));
    gather_rows_kernel<Word><<<grid, threads, 0, stream>>>(static_cast<const Word*>(in), index, rows, words,
                                                           static_cast<Word*>(out));
}

// Picks 16-, 8-, 4- or 2-byte words: the widest that divides the row and both base pointers'
// alignment (every row then starts aligned too).
void launch_gather_bytes(const void* in, const int32_t* index, int rows, std::size_t row_bytes, void* out,
                         cudaStream_t stream) {
    const auto fits = [&](std::size_t w) { return row_bytes % w == 0 && is_aligned(in, w) && is_aligned(out, w); };
    if (fits(16))
        launch_gather_words<uint4>(in, index, rows, row_bytes, out, stream);
    else if (fits(8))
        launch_gather_words<uint2>(in, index, rows, row_bytes, out, stream);
    else if (fits(4))
        launch_gather_words<uint32_t>(in, index, rows, row_bytes, out, stream);
    else
        launch_gather_words<uint16_t>(in, index, rows, row_bytes, out, stream);
    check_launch("gather_rows");
}

}  // namespace

void launch_gather_rows(const __nv_bfloat16* in, const int32_t* index, int rows, int cols, __nv_bfloat16* out,
                        cudaStream_t stream) {
    if (rows <= 0 || cols <= 0) return;
    launch_gather_bytes(in, index, rows, static_cast<std::size_t>(cols) * sizeof(__nv_bfloat16), out, stream);
}

void launch_gather_rows(const float* in, const int32_t* index, int rows, int cols, float* out, cudaStream_t stream) {
    if (rows <= 0 || cols <= 0) return;
    launch_gather_bytes(in, index, rows, static_cast<std::size_t>(cols) * sizeof(float), out, stream);
}

}  // namespace dlm::cuda
