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
#include "model/model_weights.h"

namespace dlm {

// COVER's K/V override: the listed columns are read from `source` by every query row, except
// that a query row at a listed position sees its own freshly computed K/V when
// `self_sees_fresh` (the leave-one-out view the closed-form diagonal correction restores).
// `closed_form` chooses how that view is made: false recomputes those rows' attention with the
// diagonal column swapped; true runs the override attention once for every row and then applies
// the post-hoc correction of cover-paper.txt Appendix B (compute/cover_correction.h).
struct KvOverride {
    std::vector<int32_t> positions;
    const KvCache* source = nullptr;
    bool self_sees_fresh = true;
    bool closed_form = false;
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
};

class Backend {
public:
    virtual ~Backend() = default;
    virtual std::string name() const = 0;  // "cpu", "cuda"
    virtual const ModelConfig& config() const = 0;
    virtual std::unique_ptr<KvCache> make_cache(int positions) = 0;
    virtual std::unique_ptr<PosteriorStore> make_posterior_store(int positions) = 0;

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
    virtual std::vector<float> last_layer_attention(int item) const { return {}; }

    // Rows actually computed (Q, attention, FFN) since construction, summed over layers / L:
    // i.e. the number of (position, forward) pairs. Strategies' tests count skipped rows with it.
    virtual uint64_t rows_computed() const = 0;
};

}  // namespace dlm
