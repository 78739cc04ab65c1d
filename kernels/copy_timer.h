#pragma once
// Times host<->device copies on the device: an event before and after each copy on its stream,
// read once both have completed, so timing never makes the host wait. Passed pairs are folded in
// by totals() and, to bound their number, by any copy made while 64 are unread.
#include <cuda_runtime.h>

#include <cstddef>
#include <deque>
#include <vector>

#include "compute/transfer_totals.h"

namespace dlm::cuda {

class CopyTimer {
public:
    CopyTimer() = default;
    ~CopyTimer();
    CopyTimer(const CopyTimer&) = delete;
    CopyTimer& operator=(const CopyTimer&) = delete;

    // Queues cudaMemcpyAsync(dst, src, bytes, kind) on `stream` between two timing events
    // (`what` names it in an error). Device-to-device copies are queued untimed.
    void copy(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind, cudaStream_t stream,
              const char* what);
    // Everything timed so far whose copy has finished.
    TransferTotals totals();

private:
    struct Pending {
        cudaEvent_t start, end;
        std::size_t bytes;
        bool to_device;
    };
    cudaEvent_t take_event();
    void fold_finished();

    std::deque<Pending> pending_;  // in the stream's order
    std::vector<cudaEvent_t> spare_;
    TransferTotals done_;
};

}  // namespace dlm::cuda
