#pragma once
// The compute interface every strategy runs on (design.md §3). A forward pass computes Q,
// attention and FFN only for the rows it is given; every layer writes those rows' K/V into the
// cache and attends over all N keys, reading cached K/V for rows it did not compute.
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "compute/kv_cache.h"
#include "compute/row_stats.h"
#include "compute/transfer_totals.h"
#include "model/model_weights.h"

namespace dlm {

// COVER's K/V override: the listed columns are read from `source` by every query row, except
// that the row verifying a listed column sees that column's freshly computed K/V when
// `self_sees_fresh` (the leave-one-out view the closed-form correction restores). The row
// verifying column j is the one whose logits predict token j: row j - verifier_offset, so 0 for
// models whose row i predicts token i (the diagonal) and 1 for shifted-logit models (Dream: the
// column after the diagonal). `closed_form` chooses how that view is made: false recomputes those
// rows' attention with the one column swapped; true runs the override attention once for every
// row and then applies the post-hoc correction of the COVER paper, Appendix B
// (compute/cover_correction.h), which holds for any single swapped column.
struct KvOverride {
    std::vector<int32_t> positions;
    const KvCache* source = nullptr;
    bool self_sees_fresh = true;
    bool closed_form = false;
    int verifier_offset = 0;  // 0 or 1
};

// WINO's shadow block: canvas columns [first, first + count) are
// shadow positions, each the leave-one-out twin of one column of [twin_first, twin_first + count).
// A query row outside the block never sees a shadow column; shadow row s sees every column of
// the block and every other column except its twin twin_first + (s - first). With the twins'
// position ids copied (ForwardItem::position_ids), shadow row s predicts the token at its twin
// as if that token alone were masked. count = 0: no shadow block (every row sees every column).
struct ShadowBlock {
    int first = -1;
    int twin_first = 0;
    int count = 0;

    bool active() const { return count > 0; }
    bool contains(int column) const { return count > 0 && column >= first && column < first + count; }
    int twin_of(int column) const { return twin_first + (column - first); }
    // Whether query row `query` attends to key column `key` (both canvas columns).
    bool visible(int query, int key) const {
        if (contains(key)) return contains(query);
        return !contains(query) || key != twin_of(query);
    }
};

struct ForwardItem {
    std::span<const int32_t> tokens;     // the whole canvas, N ids
    std::span<const int32_t> rows;       // positions to compute (ascending, unique)
    std::span<const int32_t> head_rows;  // rows (a subset of `rows`) that go through the LM head
    KvCache* cache = nullptr;            // must hold K/V of every position not in `rows`
    const KvOverride* kv_override = nullptr;
    bool want_lse = false;               // keep attention log-sum-exp per layer, row and head
    // Keep the last layer's attention probabilities, averaged over heads, for every computed row
    // (COVER's seed score). Rows at self-seeing override positions report their leave-one-out view.
    bool want_attention = false;
    // The RoPE position of every canvas column (N ids); empty = the column index. K/V cache
    // entries stay indexed by canvas column: a cached key keeps the position it was computed at.
    std::span<const int32_t> position_ids;
    ShadowBlock shadow;
    // A backend that cannot honour position_ids or a shadow block throws dlm::Error for the item
    // (compute/attention_layout.h has the shared checks) rather than ignoring them.
};

class Backend {
public:
    virtual ~Backend() = default;
    virtual std::string name() const = 0;  // "cpu", "cuda"
    virtual const ModelConfig& config() const = 0;
    virtual std::unique_ptr<KvCache> make_cache(int positions) = 0;
    virtual std::unique_ptr<PosteriorStore> make_posterior_store(int positions) = 0;
    // Whether forward() honours ForwardItem::position_ids and ::shadow (WINO's shadow block). The
    // safe default is no: such a backend refuses items that set them, and the decode session
    // refuses a strategy that needs them before the first step.
    virtual bool supports_attention_layout() const { return false; }

    // Runs one forward pass over a batch. Throws dlm::Error on a bad request (a row outside the
    // canvas, a skipped row with nothing cached, a canvas longer than the model's context, ...).
    virtual void forward(std::span<const ForwardItem> batch) = 0;

    // Statistics of head rows of the last forward (see RowStatsRequest).
    virtual std::vector<RowStats> row_stats(const RowStatsRequest& req) = 0;

    // Copies of the last forward's outputs, for tests, CFG checks and the inspector.
    virtual std::vector<float> logits(int item, int head_row_index) const = 0;
    // [layer][row index in item.rows][head]; empty unless want_lse.
    virtual std::vector<float> attention_lse(int item) const = 0;
    // [row index in item.rows][canvas column]: the last layer's head-averaged attention
    // probabilities; empty unless want_attention (or when a backend cannot provide them).
    virtual std::vector<float> last_layer_attention(int /*item*/) const { return {}; }

    // Rows actually computed (Q, attention, FFN) since construction, summed over layers / L:
    // i.e. the number of (position, forward) pairs. Strategies' tests count skipped rows with it.
    virtual uint64_t rows_computed() const = 0;

    // Host<->device copies made by forward() and row_stats() since construction (loading the
    // weights is not counted). Copies still in flight are counted once a later call has waited for
    // them (every row_stats() call does).
    virtual TransferTotals transfers() const { return {}; }
};

}  // namespace dlm
