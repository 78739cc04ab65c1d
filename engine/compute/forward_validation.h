#pragma once
// The checks every backend makes before a forward pass or a row-statistics request touches
// anything, shared so that the CPU and CUDA backends reject exactly the same requests with the
// same messages. Backends differ only in what a K/V cache of theirs is, which they say through
// a callback.
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "compute/backend.h"

namespace dlm {

// How a K/V cache handed to a backend relates to it.
enum class CacheFit {
    Ok,
    OtherBackend,  // made by another backend (or another kind of cache)
    OtherModel     // made by this backend for a model of another shape
};

// Everything a validated batch item needs during the forward, independent of the backend.
struct ForwardItemPlan {
    const ForwardItem* item = nullptr;
    int n = 0;  // canvas length
    int m = 0;  // rows computed
    bool has_override = false;
    bool self_sees_fresh = true;
    bool closed_form = false;
    int verifier_offset = 0;          // KvOverride::verifier_offset
    std::vector<uint8_t> overridden;  // [n] 1 where the column is read from the override source
    std::vector<int32_t> head_index;  // index in rows of each head row

    // The overridden column the query row at canvas position `pos` verifies and so reads fresh
    // (pos + verifier_offset), or -1 when it reads every overridden column from the source.
    int fresh_column(int pos) const {
        if (!has_override || !self_sees_fresh) return -1;
        const int col = pos + verifier_offset;
        return col >= 0 && col < n && overridden[static_cast<std::size_t>(col)] ? col : -1;
    }
};

// Throws dlm::Error naming the item and what is wrong (a row outside the canvas, a skipped
// column with nothing cached, a cache of another backend, ...). `backend_label` completes
// "the K/V cache was not made by the <label> backend".
std::vector<ForwardItemPlan> validate_forward(std::span<const ForwardItem> batch, const ModelConfig& config,
                                              const std::string& backend_label,
                                              const std::function<CacheFit(const KvCache&)>& fit);

// Checks a row-statistics request against the last forward. `head_rows_of(item)` returns how many
// head rows that item of the last forward has, and throws when the item is not in it.
// `store_positions` is the size of req.posteriors (ignored when it is null); the caller has
// already checked that the store is one of its own.
void validate_row_stats_request(const RowStatsRequest& req, const std::function<int(int item)>& head_rows_of,
                                int store_positions);

}  // namespace dlm
