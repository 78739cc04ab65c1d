#include "compute/cpu/cpu_posterior_store.h"

#include <algorithm>
#include <string>

#include "util/error.h"

namespace dlm::cpu {

CpuPosteriorStore::CpuPosteriorStore(int positions) {
    if (positions < 0) throw Error("posterior store: negative size " + std::to_string(positions));
    rows_.resize(static_cast<std::size_t>(positions));
    has_.assign(static_cast<std::size_t>(positions), 0);
}

void CpuPosteriorStore::check(int pos) const {
    if (pos < 0 || pos >= positions())
        throw Error("posterior store: position " + std::to_string(pos) + " is outside 0.." +
                    std::to_string(positions() - 1));
}

bool CpuPosteriorStore::has(int pos) const { return pos >= 0 && pos < positions() && has_[pos] != 0; }

// Keeps the buffer: the position will most likely be stored again.
void CpuPosteriorStore::erase(int pos) {
    check(pos);
    has_[pos] = 0;
}

void CpuPosteriorStore::clear() { std::fill(has_.begin(), has_.end(), 0); }

std::span<const float> CpuPosteriorStore::get(int pos) const {
    if (!has(pos)) return {};
    return rows_[pos];
}

void CpuPosteriorStore::put(int pos, std::vector<float>& posterior) {
    check(pos);
    rows_[pos].swap(posterior);
    has_[pos] = 1;
}

}  // namespace dlm::cpu
