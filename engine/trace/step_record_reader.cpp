#include "trace/step_record_reader.h"

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "util/error.h"
#include "util/narrow_float.h"

namespace dlm {

namespace {

using json = nlohmann::json;

// The SAX events of one step record, checked against the writer's layout as they come. Returning
// false stops the parse; the caller then falls back to the tree reader.
class StepRecordSax : public nlohmann::json_sax<json> {
public:
    StepTrace out;
    bool complete = false;

    bool null() override { return number(std::numeric_limits<double>::quiet_NaN(), true); }
    bool boolean(bool) override { return false; }
    bool number_integer(number_integer_t v) override { return integer(v) && number(double(v), false); }
    bool number_unsigned(number_unsigned_t v) override {
        return v <= uint64_t(std::numeric_limits<int64_t>::max()) && integer(int64_t(v)) && number(double(v), false);
    }
    bool number_float(number_float_t v, const string_t&) override { return number(v, false); }
    bool binary(binary_t&) override { return false; }

    // A value's field is known from its key's place in the order (key() checks it): no key
    // comparisons per value, ~10,000 of them in a 1024-position record.
    bool string(string_t& v) override {
        switch (where_) {
            case Where::Top:
                if (top_key() == kType) return v == "step";
                if (top_key() == kStrategy) return out.strategy = std::move(v), true;
                return false;
            case Where::Position: {
                PositionTrace& p = out.positions.back();
                try {
                    if (position_key() == kState) return p.state = parse_pos_state(v), true;
                    if (position_key() == kEvent) return p.event = parse_pos_event(v), true;
                } catch (const Error&) {
                    return false;
                }
                if (position_key() == kPositionText) return p.text = std::move(v), true;
                return false;
            }
            case Where::Candidate:
                if (candidate_next_ - 1 == kCandidateText) return out.positions.back().top.back().text = std::move(v), true;
                return false;
            default:
                return false;
        }
    }

    bool start_object(std::size_t) override {
        switch (where_) {
            case Where::Start: where_ = Where::Top; return true;
            case Where::Top:
                if (top_key() != kCounters) return false;
                where_ = Where::Counters;
                return true;
            case Where::Positions:
                out.positions.emplace_back();
                where_ = Where::Position;
                position_next_ = 0;
                return true;
            case Where::Top_k:
                out.positions.back().top.emplace_back();
                where_ = Where::Candidate;
                candidate_next_ = 0;
                return true;
            default: return false;
        }
    }
    bool end_object() override {
        switch (where_) {
            // Every key of the level must have come: a record without one is the tree reader's to name.
            case Where::Top: complete = top_next_ == std::size(kTop); where_ = Where::Done; return complete;
            case Where::Counters: where_ = Where::Top; return true;
            case Where::Position: where_ = Where::Positions; return position_next_ == std::size(kPosition);
            case Where::Candidate: where_ = Where::Top_k; return candidate_next_ == std::size(kCandidate);
            default: return false;
        }
    }
    bool start_array(std::size_t) override {
        if (where_ == Where::Top && top_key() == kPositions) return where_ = Where::Positions, true;
        if (where_ == Where::Position && position_key() == kTop_k) return where_ = Where::Top_k, true;
        return false;
    }
    bool end_array() override {
        if (where_ == Where::Positions) return where_ = Where::Top, true;
        if (where_ == Where::Top_k) return where_ = Where::Position, true;
        return false;
    }
    bool key(string_t& k) override {
        // Keys come in the writer's order: each one must be the next expected at its level.
        const char* const* order = nullptr;
        size_t* next = nullptr;
        size_t count = 0;
        switch (where_) {
            case Where::Top: order = kTop, next = &top_next_, count = std::size(kTop); break;
            case Where::Position: order = kPosition, next = &position_next_, count = std::size(kPosition); break;
            case Where::Candidate: order = kCandidate, next = &candidate_next_, count = std::size(kCandidate); break;
            case Where::Counters:
                counter_ = std::move(k);
                return out.counters.emplace(counter_, 0.0).second;  // a repeated counter: the tree reader decides
            default: return false;
        }
        if (*next >= count || k != order[*next]) return false;
        ++*next;
        return true;
    }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }

private:
    enum class Where { Start, Top, Counters, Positions, Position, Top_k, Candidate, Done };
    static constexpr const char* kTop[] = {"type", "step", "block", "strategy", "wall_ms", "rows_computed", "rows_total",
                                           "paper_flops", "paper_flops_dense", "lm_head_flops", "guider_flops",
                                           "newly_unmasked", "counters", "positions"};
    static constexpr const char* kPosition[] = {"pos", "state", "event", "token", "text", "confidence", "entropy", "kl", "top"};
    static constexpr const char* kCandidate[] = {"id", "p", "text"};
    // Places in those orders.
    enum TopKey : size_t { kType, kStep, kBlock, kStrategy, kWallMs, kRowsComputed, kRowsTotal, kPaperFlops,
                           kPaperFlopsDense, kLmHeadFlops, kGuiderFlops, kNewlyUnmasked, kCounters, kPositions };
    enum PositionKey : size_t { kPos, kState, kEvent, kToken, kPositionText, kConfidence, kEntropy, kKl, kTop_k };
    enum CandidateKey : size_t { kId, kP, kCandidateText };
    size_t top_key() const { return top_next_ - 1; }  // the key just read at its level
    size_t position_key() const { return position_next_ - 1; }

    // An integer where the layout has an int field (the number() call that follows ignores it).
    bool integer(int64_t v) {
        pending_int_ = v;
        has_int_ = v >= std::numeric_limits<int>::min() && v <= std::numeric_limits<int>::max();
        return true;
    }
    // Every number and null ends here; `is_null` because a null is only allowed where NaN is.
    bool number(double v, bool is_null) {
        const bool is_int = has_int_ && !is_null;
        has_int_ = false;
        auto set_int = [&](int& field) { return is_int && (field = int(pending_int_), true); };
        switch (where_) {
            case Where::Top:
                switch (top_key()) {
                    case kStep: return set_int(out.step);
                    case kBlock: return set_int(out.block);
                    case kRowsComputed: return set_int(out.rows_computed);
                    case kRowsTotal: return set_int(out.rows_total);
                    case kNewlyUnmasked: return set_int(out.newly_unmasked);
                    case kWallMs: return out.wall_ms = v, true;
                    case kPaperFlops: return out.paper_flops = v, true;
                    case kPaperFlopsDense: return out.paper_flops_dense = v, true;
                    case kLmHeadFlops: return out.lm_head_flops = v, true;
                    case kGuiderFlops: return out.guider_flops = is_null ? 0.0 : v, true;
                    default: return false;
                }
            case Where::Counters: return out.counters[counter_] = v, true;
            case Where::Position: {
                PositionTrace& p = out.positions.back();
                switch (position_key()) {
                    case kPos: return set_int(p.pos);
                    case kToken: return set_int(p.token);
                    case kConfidence: return p.confidence = narrow_to_float(v), true;
                    case kEntropy: return p.entropy = narrow_to_float(v), true;
                    case kKl: return p.kl = narrow_to_float(v), true;
                    default: return false;
                }
            }
            case Where::Candidate: {
                Candidate& c = out.positions.back().top.back();
                if (candidate_next_ - 1 == kId) return set_int(c.id);
                if (candidate_next_ - 1 == kP) return c.p = narrow_to_float(v), true;
                return false;
            }
            default: return false;
        }
    }

    Where where_ = Where::Start;
    std::string counter_;  // the counter whose value comes next
    size_t top_next_ = 0, position_next_ = 0, candidate_next_ = 0;
    int64_t pending_int_ = 0;
    bool has_int_ = false;
};

}  // namespace

std::optional<StepTrace> read_step_record_fast(std::string_view line) {
    StepRecordSax sax;
    bool ok = false;
    try {
        ok = json::sax_parse(line, &sax, json::input_format_t::json, /*strict=*/true);
    } catch (const std::exception&) {
        return std::nullopt;
    }
    if (!ok || !sax.complete) return std::nullopt;
    return std::move(sax.out);
}

}  // namespace dlm
