#include "cuda_posterior_store.h"

#include <algorithm>
#include <string>

#include "util/error.h"

namespace dlm::cuda {

CudaPosteriorStore::CudaPosteriorStore(std::shared_ptr<const CudaStream> stream, int positions, int vocab)
    : stream_(std::move(stream)), vocab_(vocab) {
    if (positions < 0) throw Error("posterior store: negative size " + std::to_string(positions));
    has_.assign(static_cast<std::size_t>(positions), 0);
}

void CudaPosteriorStore::check_position(int pos) const {
    if (pos < 0 || pos >= positions())
        throw Error("posterior store: position " + std::to_string(pos) + " is outside 0.." +
                    std::to_string(positions() - 1));
}

bool CudaPosteriorStore::has(int pos) const {
    return pos >= 0 && pos < positions() && has_[static_cast<std::size_t>(pos)] != 0;
}

void CudaPosteriorStore::erase(int pos) {
    check_position(pos);
    has_[static_cast<std::size_t>(pos)] = 0;
}

void CudaPosteriorStore::clear() { std::fill(has_.begin(), has_.end(), 0); }

float* CudaPosteriorStore::device_rows() {
    const std::size_t count = static_cast<std::size_t>(positions()) * static_cast<std::size_t>(vocab_);
    if (rows_.capacity() < count) {
        stream_->activate();
        rows_.reserve(count, "posterior store");
    }
    return rows_.get();
}

float* CudaPosteriorStore::device_row(int pos) {
    check_position(pos);
    return device_rows() + static_cast<std::size_t>(pos) * static_cast<std::size_t>(vocab_);
}

}  // namespace dlm::cuda
