#pragma once
// Backend::row_stats for the CUDA backend. The fused kernel (row_stats_kernel.cuh) computes each
// row's statistics next to the logits and only the few numbers per row come back. Two cases it
// does not cover run the CPU reference (compute_row_stats) on downloaded logits rows instead,
// with the previous posteriors downloaded from and the new ones uploaded to the device store:
// sampling with top_p < 1 or top_k > 0 (a sort over the vocabulary per row; Dream's defaults),
// and more display candidates than the kernel keeps (kMaxDisplayTopK).
#include <memory>
#include <vector>

#include "compute/row_stats.h"
#include "cuda_posterior_store.h"
#include "cuda_stream.h"
#include "device_buffer.h"
#include "pinned_buffer.h"
#include "row_stats_kernel.cuh"
#include "upload_pack.h"

namespace dlm::cpu {
class ThreadPool;
}

namespace dlm::cuda {

class CudaRowStats {
public:
    explicit CudaRowStats(std::shared_ptr<const CudaStream> stream);
    ~CudaRowStats();

    // `logits`: the device logits of the last forward, [head rows of all items][vocab];
    // `item_first_row` / `uncond_first_row`: the first logits row of req.item / of the CFG item
    // (-1: no CFG). The request has been validated against the forward (validate_row_stats_request).
    std::vector<RowStats> run(const RowStatsRequest& req, const float* logits, int vocab, int item_first_row,
                              int uncond_first_row, CudaPosteriorStore* store);

    // Whether `req` needs the CPU fallback.
    static bool needs_cpu(const RowStatsRequest& req);

private:
    std::vector<RowStats> on_device(const RowStatsRequest& req, const float* logits, int vocab, int item_first_row,
                                    int uncond_first_row, CudaPosteriorStore* store);
    std::vector<RowStats> on_cpu(const RowStatsRequest& req, const float* logits, int vocab, int item_first_row,
                                 int uncond_first_row, CudaPosteriorStore* store);

    std::shared_ptr<const CudaStream> stream_;
    UploadPack pack_;
    DeviceBuffer<DeviceRowStats> device_out_;
    PinnedBuffer<DeviceRowStats> host_out_;
    // CPU fallback: page-locked rows (logits, unconditional logits, previous and new posteriors)
    // and a thread pool, both made on first use.
    PinnedBuffer<float> host_rows_;
    std::unique_ptr<cpu::ThreadPool> pool_;
};

}  // namespace dlm::cuda
