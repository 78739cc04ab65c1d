#include "compute/forward_validation.h"

#include <algorithm>

#include "util/error.h"

namespace dlm {

namespace {

std::string pos_str(int64_t p) { return std::to_string(p); }

}  // namespace

std::vector<ForwardItemPlan> validate_forward(std::span<const ForwardItem> batch, const ModelConfig& c,
                                              const std::string& backend_label,
                                              const std::function<CacheFit(const KvCache&)>& fit) {
    std::vector<ForwardItemPlan> plans(batch.size());
    for (std::size_t b = 0; b < batch.size(); ++b) {
        const ForwardItem& it = batch[b];
        ForwardItemPlan& p = plans[b];
        const std::string where = "forward item " + std::to_string(b) + ": ";
        p.item = &it;
        p.n = static_cast<int>(it.tokens.size());
        p.m = static_cast<int>(it.rows.size());
        if (it.tokens.empty()) throw Error(where + "empty canvas");
        if (c.max_seq_len > 0 && p.n > c.max_seq_len)
            throw Error(where + "canvas of " + pos_str(p.n) + " positions is longer than the model's context (" +
                        pos_str(c.max_seq_len) + ")");
        for (std::size_t i = 0; i < it.tokens.size(); ++i)
            if (it.tokens[i] < 0 || it.tokens[i] >= c.vocab_size)
                throw Error(where + "token id " + pos_str(it.tokens[i]) + " at position " + pos_str(static_cast<int64_t>(i)) +
                            " is outside the vocabulary (0.." + pos_str(c.vocab_size - 1) + ")");
        if (!it.cache) throw Error(where + "no K/V cache given");
        switch (fit(*it.cache)) {
            case CacheFit::Ok: break;
            case CacheFit::OtherBackend:
                throw Error(where + "the K/V cache was not made by the " + backend_label + " backend");
            case CacheFit::OtherModel: throw Error(where + "the K/V cache was made for a different model");
        }
        if (it.cache->positions() < p.n)
            throw Error(where + "the K/V cache holds " + pos_str(it.cache->positions()) +
                        " positions but the canvas has " + pos_str(p.n));
        for (std::size_t i = 0; i < it.rows.size(); ++i) {
            const int32_t r = it.rows[i];
            if (r < 0 || r >= p.n)
                throw Error(where + "row " + pos_str(r) + " is outside the canvas (0.." + pos_str(p.n - 1) + ")");
            if (i > 0 && r <= it.rows[i - 1])
                throw Error(where + "rows must be ascending and unique (" + pos_str(it.rows[i - 1]) + " then " +
                            pos_str(r) + ")");
        }
        p.head_index.resize(it.head_rows.size());
        for (std::size_t i = 0; i < it.head_rows.size(); ++i) {
            const int32_t r = it.head_rows[i];
            if (i > 0 && r <= it.head_rows[i - 1])
                throw Error(where + "head rows must be ascending and unique (" + pos_str(it.head_rows[i - 1]) +
                            " then " + pos_str(r) + ")");
            auto found = std::lower_bound(it.rows.begin(), it.rows.end(), r);
            if (found == it.rows.end() || *found != r)
                throw Error(where + "head row " + pos_str(r) + " is not among the computed rows");
            p.head_index[i] = static_cast<int32_t>(found - it.rows.begin());
        }
        p.overridden.assign(static_cast<std::size_t>(p.n), 0);
        if (it.kv_override) {
            const KvOverride& o = *it.kv_override;
            p.has_override = true;
            p.self_sees_fresh = o.self_sees_fresh;
            p.closed_form = o.closed_form;
            p.verifier_offset = o.verifier_offset;
            if (!o.source) throw Error(where + "K/V override without a source cache");
            if (o.verifier_offset != 0 && o.verifier_offset != 1)
                throw Error(where + "K/V override verifier offset " + std::to_string(o.verifier_offset) +
                            " (0: a row verifies its own column; 1: the column after it)");
            // A causal row never sees the column after it, so it cannot read that column fresh.
            if (o.verifier_offset == 1 && !c.bidirectional)
                throw Error(where + "a K/V override verified by the row before each column needs a bidirectional "
                                    "model; '" + std::string(family_name(c.family)) + "' attends causally");
            switch (fit(*o.source)) {
                case CacheFit::Ok: break;
                case CacheFit::OtherBackend:
                    throw Error(where + "the override source cache was not made by the " + backend_label + " backend");
                case CacheFit::OtherModel:
                    throw Error(where + "the override source cache was made for a different model");
            }
            for (const ForwardItem& other : batch)
                if (other.cache == o.source)
                    throw Error(where + "the override source is a cache this forward writes; pass a snapshot "
                                        "(KvCache::copy_rows_from)");
            for (int32_t pos : o.positions) {
                if (pos < 0 || pos >= p.n)
                    throw Error(where + "override position " + pos_str(pos) + " is outside the canvas");
                if (!o.source->has(pos))
                    throw Error(where + "override position " + pos_str(pos) + " has no K/V in the source cache");
                p.overridden[static_cast<std::size_t>(pos)] = 1;
            }
        }
        // Every column that is neither computed now nor overridden must come from the cache.
        std::size_t next = 0;
        for (int pos = 0; pos < p.n; ++pos) {
            while (next < it.rows.size() && it.rows[next] < pos) ++next;
            const bool computed = next < it.rows.size() && it.rows[next] == pos;
            if (computed || p.overridden[static_cast<std::size_t>(pos)]) continue;
            // Causal models never read keys after the last computed row.
            if (!c.bidirectional && (it.rows.empty() || pos > it.rows.back())) continue;
            if (!it.cache->has(pos)) throw Error(where + "position " + pos_str(pos) + " has no cached K/V");
        }
        for (std::size_t o = 0; o < b; ++o)
            if (batch[o].cache == it.cache) throw Error(where + "shares its K/V cache with item " + std::to_string(o));
    }
    return plans;
}

void validate_row_stats_request(const RowStatsRequest& req, const std::function<int(int item)>& head_rows_of,
                                int store_positions) {
    const int head_rows = head_rows_of(req.item);
    if (req.head_row_index.size() != req.positions.size())
        throw Error("row statistics: " + std::to_string(req.head_row_index.size()) + " head rows but " +
                    std::to_string(req.positions.size()) + " positions");
    for (int32_t idx : req.head_row_index)
        if (idx < 0 || idx >= head_rows)
            throw Error("row statistics: head row index " + std::to_string(idx) + " outside 0.." +
                        std::to_string(head_rows - 1));
    if (req.cfg_uncond_item >= 0) {
        if (req.cfg_uncond_item == req.item)
            throw Error("classifier-free guidance: the unconditional item is the item itself");
        const int uncond_rows = head_rows_of(req.cfg_uncond_item);
        for (int32_t idx : req.head_row_index)
            if (idx >= uncond_rows)
                throw Error("classifier-free guidance: the unconditional item has no head row " + std::to_string(idx));
    }
    if (req.posteriors) {
        for (int32_t pos : req.positions)
            if (pos < 0 || pos >= store_positions)
                throw Error("row statistics: position " + std::to_string(pos) + " is outside the posterior store (" +
                            std::to_string(store_positions) + " positions)");
        // Rows are processed in parallel; two rows updating one position would race.
        std::vector<int32_t> sorted(req.positions.begin(), req.positions.end());
        std::sort(sorted.begin(), sorted.end());
        if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
            throw Error("row statistics: a position appears twice while updating posteriors");
    }
}

}  // namespace dlm
