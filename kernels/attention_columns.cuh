#pragma once
// Where each attention column's K/V comes from, shared by the attention, attention-probability
// and COVER-correction kernels so the three agree (attention.cuh): the item's cache, or the
// override source at overridden columns — except the overridden column a query row verifies
// (its own, or the next one under shifted logits) when it sees it fresh. Which columns a query row may see at all (causal rows, WINO's shadow
// block), shared by the attention and probability kernels. Also the argument checks the
// launchers share.
#include <cuda_bf16.h>

#include <climits>
#include <cstddef>
#include <cstdint>
#include <string>

#include "attention.cuh"
#include "util/error.h"

namespace dlm::cuda {

struct ColumnSources {
    const __nv_bfloat16* k_cache = nullptr;  // [>= n][kv_dim]
    const __nv_bfloat16* v_cache = nullptr;
    const __nv_bfloat16* k_override = nullptr;
    const __nv_bfloat16* v_override = nullptr;
    const uint8_t* overridden = nullptr;  // [n] or null
    bool self_sees_fresh = true;
    int verifier_offset = 0;  // AttentionArgs::verifier_offset
    int n = 0;
    int kv_dim = 0;

#ifdef __CUDACC__
    __device__ __forceinline__ bool is_overridden(int j) const { return overridden != nullptr && overridden[j] != 0; }
    // The overridden column the query row at canvas position `pos` verifies, pos +
    // verifier_offset, whether or not this pass reads it fresh; -1 when it verifies none.
    __device__ __forceinline__ int verified_column(int pos) const {
        const int col = pos + verifier_offset;
        return pos >= 0 && col < n && is_overridden(col) ? col : -1;
    }
    // The column a query row at canvas position `pos` reads from the cache although it is
    // overridden (the one it verifies, when it sees it fresh); -1 when there is none.
    __device__ __forceinline__ int self_fresh_column(int pos) const {
        return self_sees_fresh ? verified_column(pos) : -1;
    }
    // Rows of column j as every other query row sees it.
    __device__ __forceinline__ const __nv_bfloat16* k_row(int j) const {
        return (is_overridden(j) ? k_override : k_cache) + static_cast<std::size_t>(j) * kv_dim;
    }
    __device__ __forceinline__ const __nv_bfloat16* v_row(int j) const {
        return (is_overridden(j) ? v_override : v_cache) + static_cast<std::size_t>(j) * kv_dim;
    }
    __device__ __forceinline__ const __nv_bfloat16* k_fresh(int j) const {
        return k_cache + static_cast<std::size_t>(j) * kv_dim;
    }
    __device__ __forceinline__ const __nv_bfloat16* v_fresh(int j) const {
        return v_cache + static_cast<std::size_t>(j) * kv_dim;
    }
#endif
};

inline ColumnSources column_sources(const AttentionArgs& a) {
    ColumnSources s;
    s.k_cache = a.k_cache;
    s.v_cache = a.v_cache;
    s.k_override = a.k_override;
    s.v_override = a.v_override;
    s.overridden = a.overridden;
    s.self_sees_fresh = a.self_sees_fresh;
    s.verifier_offset = a.verifier_offset;
    s.n = a.n;
    s.kv_dim = a.n_kv_heads * a.head_dim;
    return s;
}

// The columns one query row may not see: every column after `last`, the column `twin`, and the
// columns [hidden_first, hidden_end). Made once per row so the per-score test is three compares.
struct HiddenColumns {
    int last = INT_MAX;
    int twin = -1;
    int hidden_first = 0, hidden_end = 0;

    // Host too: the tests check hides_any against hides column by column without a GPU.
    __host__ __device__ __forceinline__ bool hides(int col) const {
        return col > last || col == twin || (col >= hidden_first && col < hidden_end);
    }
    // Whether any column of [first, end) is hidden: a tile where none is skips the per-score test.
    __host__ __device__ __forceinline__ bool hides_any(int first, int end) const {
        return first < end && (last < end - 1 || (twin >= first && twin < end) ||
                               (hidden_first < hidden_end && hidden_first < end && hidden_end > first));
    }
};

// AttentionArgs::causal and the shadow block, as the kernels apply them (compute/backend.h
// ShadowBlock::visible is the reference rule).
struct ColumnVisibility {
    bool causal = false;
    int shadow_first = 0, shadow_end = 0;  // [first, end); empty without a shadow block
    int twin_first = 0;

#ifdef __CUDACC__
    __device__ __forceinline__ bool in_shadow(int col) const { return col >= shadow_first && col < shadow_end; }
    // For the query row at canvas position `pos`: a causal row sees nothing after itself; a shadow
    // row misses only its twin; any other row misses the whole shadow block.
    __device__ __forceinline__ HiddenColumns for_row(int pos) const {
        HiddenColumns h;
        if (causal) h.last = pos;
        if (in_shadow(pos)) {
            h.twin = twin_first + (pos - shadow_first);
        } else {
            h.hidden_first = shadow_first;
            h.hidden_end = shadow_end;
        }
        return h;
    }
    // The same rule evaluated in one go, for a kernel that tests few scores per row.
    __device__ __forceinline__ bool hides(int pos, int col) const {
        if (causal && col > pos) return true;
        return in_shadow(pos) ? col == twin_first + (pos - shadow_first) : in_shadow(col);
    }
    // One past the last column any of these rows may see: causal rows read nothing after the
    // largest position; otherwise every one of the n columns.
    __device__ __forceinline__ int column_end(int max_pos, int n) const {
        return causal ? max(0, min(max_pos + 1, n)) : n;
    }
#endif
};

inline ColumnVisibility column_visibility(const AttentionArgs& a) {
    ColumnVisibility v;
    v.causal = a.causal;
    if (a.shadow_count > 0) {
        v.shadow_first = a.shadow_first;
        v.shadow_end = a.shadow_first + a.shadow_count;
        v.twin_first = a.shadow_twin_first;
    }
    return v;
}

// The query side the attention, probability and COVER-correction kernels all read, filled from
// the arguments in one place so their launchers cannot disagree on it.
struct AttentionRows {
    ColumnSources src;
    ColumnVisibility vis;
    const float* q;
    int q_stride;
    const int32_t* row_pos;
    int m, n, n_heads, group, head_dim;  // group: query heads per K/V head
};

inline AttentionRows attention_rows(const AttentionArgs& a) {
    AttentionRows r{};
    r.src = column_sources(a);
    r.vis = column_visibility(a);
    r.q = a.q;
    r.q_stride = a.q_stride;
    r.row_pos = a.row_pos;
    r.m = a.m;
    r.n = a.n;
    r.n_heads = a.n_heads;
    r.group = a.n_heads / a.n_kv_heads;
    r.head_dim = a.head_dim;
    return r;
}

// Throws dlm::Error("<op>: <what is wrong>") for shapes no kernel can run with.
inline void validate_attention_shapes(const AttentionArgs& a, const char* op) {
    auto fail = [op](const std::string& why) { throw Error(std::string(op) + ": " + why); };
    if (a.m < 0 || a.n < 0) fail("negative row or column count (" + std::to_string(a.m) + ", " + std::to_string(a.n) + ")");
    if (a.m > 0 && a.n == 0) fail("query rows but no canvas columns to attend to");
    if (a.head_dim <= 0 || a.head_dim > 256 || a.head_dim % 2 != 0)
        fail("head_dim " + std::to_string(a.head_dim) + " is not supported (it must be even and at most 256)");
    if (a.n_heads <= 0 || a.n_kv_heads <= 0 || a.n_heads % a.n_kv_heads != 0)
        fail(std::to_string(a.n_heads) + " query heads cannot share " + std::to_string(a.n_kv_heads) + " K/V heads evenly");
}

// The shape checks plus the q layout and the pointers every launcher needs.
inline void validate_attention_args(const AttentionArgs& a, const char* op) {
    validate_attention_shapes(a, op);
    auto fail = [op](const std::string& why) { throw Error(std::string(op) + ": " + why); };
    if (a.q_stride < a.n_heads * a.head_dim)
        fail("q row stride " + std::to_string(a.q_stride) + " is shorter than the " + std::to_string(a.n_heads) +
             " heads of " + std::to_string(a.head_dim));
    if (a.m > 0 && (!a.q || !a.k_cache || !a.v_cache || !a.row_pos)) fail("missing q, K/V cache or row positions");
    if (a.overridden && (!a.k_override || !a.v_override)) fail("override columns without an override K/V source");
    if (a.shadow_count < 0) fail("shadow block with a negative count (" + std::to_string(a.shadow_count) + ")");
    if (a.shadow_count > 0) {
        auto inside = [&a](int first) { return first >= 0 && first <= a.n - a.shadow_count; };
        if (!inside(a.shadow_first) || !inside(a.shadow_twin_first))
            fail("shadow block at column " + std::to_string(a.shadow_first) + " with twins at " +
                 std::to_string(a.shadow_twin_first) + " (" + std::to_string(a.shadow_count) +
                 " columns each) does not fit in " + std::to_string(a.n) + " columns");
    }
}

}  // namespace dlm::cuda
