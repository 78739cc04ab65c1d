#pragma once
// Per-layer K/V of every canvas position. Rows that a forward pass does not compute are read
// from here; rows it computes are written here (design.md §3). Backends own the storage.
#include <cstdint>
#include <span>

namespace dlm {

class KvCache {
public:
    virtual ~KvCache() = default;
    virtual int positions() const = 0;
    // True when position `pos` holds K/V for every layer (written by an earlier forward).
    virtual bool has(int pos) const = 0;
    // Forgets every position (a new canvas).
    virtual void clear() = 0;
    // Copies the K/V of `rows` from `other` (same backend, same shape), e.g. a snapshot of the
    // previous step's K/V for COVER's override.
    virtual void copy_rows_from(const KvCache& other, std::span<const int32_t> rows) = 0;
};

}  // namespace dlm
