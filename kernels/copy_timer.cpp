#include "copy_timer.h"

#include "cuda_check.h"

namespace dlm::cuda {

CopyTimer::~CopyTimer() {
    for (const Pending& p : pending_) {
        cudaEventSynchronize(p.end);
        cudaEventDestroy(p.start);
        cudaEventDestroy(p.end);
    }
    for (cudaEvent_t e : spare_) cudaEventDestroy(e);
}

cudaEvent_t CopyTimer::take_event() {
    if (!spare_.empty()) {
        cudaEvent_t e = spare_.back();
        spare_.pop_back();
        return e;
    }
    cudaEvent_t e = nullptr;
    check(cudaEventCreate(&e), "cudaEventCreate (copy timing)");
    return e;
}

void CopyTimer::copy(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind, cudaStream_t stream,
                     const char* what) {
    const bool timed = bytes > 0 && (kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToHost);
    if (!timed) {
        check(cudaMemcpyAsync(dst, src, bytes, kind, stream), what);
        return;
    }
    if (pending_.size() >= 64) fold_finished();
    Pending p{take_event(), take_event(), bytes, kind == cudaMemcpyHostToDevice};
    pending_.push_back(p);  // owned from here on, whatever fails below
    check(cudaEventRecord(p.start, stream), what);
    check(cudaMemcpyAsync(dst, src, bytes, kind, stream), what);
    check(cudaEventRecord(p.end, stream), what);
}

void CopyTimer::fold_finished() {
    // One stream runs its copies in order: the first pair not yet passed ends the scan, so a
    // long queue of copies in flight costs one query per call, not one per copy.
    while (!pending_.empty()) {
        const Pending& p = pending_.front();
        const cudaError_t state = cudaEventQuery(p.end);
        if (state == cudaErrorNotReady) {  // not yet run
            cudaGetLastError();            // a not-ready query is no error of the backend's
            return;
        }
        float ms = 0;
        if (state == cudaSuccess && cudaEventElapsedTime(&ms, p.start, p.end) == cudaSuccess) {
            if (p.to_device) {
                ++done_.to_device_copies, done_.to_device_bytes += p.bytes, done_.to_device_ms += ms;
            } else {
                ++done_.to_host_copies, done_.to_host_bytes += p.bytes, done_.to_host_ms += ms;
            }
        } else {
            cudaGetLastError();  // a copy that failed is reported by the backend's own checks, not counted here
        }
        spare_.push_back(p.start);
        spare_.push_back(p.end);
        pending_.pop_front();
    }
}

TransferTotals CopyTimer::totals() {
    fold_finished();
    return done_;
}

}  // namespace dlm::cuda
