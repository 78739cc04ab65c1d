#include "decode/shadow_columns.h"

#include <algorithm>
#include <numeric>

#include "util/error.h"

namespace dlm {

void ShadowColumns::reset(int canvas_size, int capacity) {
    n_ = canvas_size;
    capacity_ = std::max(0, capacity);
    request_ = {};
    by_pos_.assign(static_cast<std::size_t>(n_), nullptr);
}

int ShadowColumns::extend(const ShadowRequest& request, const std::string& who, const DecodeCanvas& canvas,
                          int batch_items, bool shifted_logits, ForwardItem& item) {
    request_ = {};
    std::fill(by_pos_.begin(), by_pos_.end(), nullptr);
    const int count = request.count;
    if (count == 0) return 0;
    if (count < 0 || count > capacity_)
        throw Error(who + " asked for " + std::to_string(count) + " shadow columns; it announced at most " +
                    std::to_string(capacity_));
    if (request.twin_first < canvas.prompt_length() || request.twin_first + count > n_)
        throw Error(who + " placed shadow twins outside the generated region");
    if (batch_items != 1) throw Error(who + ": a shadow block cannot run with classifier-free guidance");
    if (shifted_logits)
        throw Error(who + ": a shadow block needs a model whose row i predicts token i (not shifted logits)");
    request_ = request;
    tokens_.assign(item.tokens.begin(), item.tokens.end());
    tokens_.resize(static_cast<std::size_t>(n_ + count), canvas.mask_id());
    position_ids_.resize(static_cast<std::size_t>(n_ + count));
    std::iota(position_ids_.begin(), position_ids_.begin() + n_, 0);
    std::iota(position_ids_.begin() + n_, position_ids_.end(), request.twin_first);
    rows_.assign(item.rows.begin(), item.rows.end());
    head_rows_.assign(item.head_rows.begin(), item.head_rows.end());
    for (int s = 0; s < count; ++s) {
        rows_.push_back(n_ + s);
        head_rows_.push_back(n_ + s);
    }
    item.tokens = tokens_;
    item.rows = rows_;
    item.head_rows = head_rows_;
    item.position_ids = position_ids_;
    item.shadow = ShadowBlock{n_, request.twin_first, count};
    return count;
}

void ShadowColumns::score(Backend& backend, const RowStatsRequest& base, int head_rows, const DecodeCanvas& canvas) {
    const int count = request_.count;
    if (count == 0) return;
    head_index_.clear();
    positions_.clear();
    query_.assign(static_cast<std::size_t>(n_ + count), -1);
    for (int s = 0; s < count; ++s) {
        const int twin = request_.twin_first + s;
        head_index_.push_back(head_rows + s);
        positions_.push_back(n_ + s);
        query_[static_cast<std::size_t>(n_ + s)] = canvas.is_masked(twin) ? -1 : canvas.token(twin);
    }
    // Not canvas positions: no posterior store, no display candidates.
    RowStatsRequest req = base;
    req.head_row_index = head_index_;
    req.positions = positions_;
    req.posteriors = nullptr;
    req.display_top_k = 0;
    req.query_token_at = query_;
    stats_ = backend.row_stats(req);
    if (stats_.size() != static_cast<std::size_t>(count))
        throw Error("backend '" + backend.name() + "' returned " + std::to_string(stats_.size()) +
                    " statistics rows for " + std::to_string(count) + " shadow rows");
    for (int s = 0; s < count; ++s)
        by_pos_[static_cast<std::size_t>(request_.twin_first + s)] = &stats_[static_cast<std::size_t>(s)];
}

}  // namespace dlm
