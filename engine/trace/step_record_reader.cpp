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

    bool string(string_t& v) override {
        switch (where_) {
            case Where::Top:
                if (key_ == "type") return v == "step";
                if (key_ == "strategy") return out.strategy = std::move(v), true;
                return false;
            case Where::Position: {
                PositionTrace& p = out.positions.back();
                try {
                    if (key_ == "state") return p.state = parse_pos_state(v), true;
                    if (key_ == "event") return p.event = parse_pos_event(v), true;
                } catch (const Error&) {
                    return false;
                }
                if (key_ == "text") return p.text = std::move(v), true;
                return false;
            }
            case Where::Candidate:
                if (key_ == "text") return out.positions.back().top.back().text = std::move(v), true;
                return false;
            default:
                return false;
        }
    }

    bool start_object(std::size_t) override {
        switch (where_) {
            case Where::Start: where_ = Where::Top; return true;
            case Where::Top:
                if (key_ != "counters") return false;
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
        if (where_ == Where::Top && key_ == "positions") return where_ = Where::Positions, true;
        if (where_ == Where::Position && key_ == "top") return where_ = Where::Top_k, true;
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
                key_ = std::move(k);
                return out.counters.emplace(key_, 0.0).second;  // a repeated counter: the tree reader decides
            default: return false;
        }
        if (*next >= count || k != order[*next]) return false;
        ++*next;
        key_ = std::move(k);
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
        switch (where_) {
            case Where::Top:
                if (key_ == "step" || key_ == "block" || key_ == "rows_computed" || key_ == "rows_total" ||
                    key_ == "newly_unmasked") {
                    if (!is_int) return false;
                    const int x = int(pending_int_);
                    (key_ == "step" ? out.step : key_ == "block" ? out.block : key_ == "rows_computed" ? out.rows_computed
                                                : key_ == "rows_total" ? out.rows_total : out.newly_unmasked) = x;
                    return true;
                }
                if (key_ == "guider_flops") return out.guider_flops = is_null ? 0.0 : v, true;
                if (key_ == "wall_ms") return out.wall_ms = v, true;
                if (key_ == "paper_flops") return out.paper_flops = v, true;
                if (key_ == "paper_flops_dense") return out.paper_flops_dense = v, true;
                if (key_ == "lm_head_flops") return out.lm_head_flops = v, true;
                return false;
            case Where::Counters: return out.counters[key_] = v, true;
            case Where::Position: {
                PositionTrace& p = out.positions.back();
                if (key_ == "pos" || key_ == "token") {
                    if (!is_int) return false;
                    (key_ == "pos" ? p.pos : p.token) = int(pending_int_);
                    return true;
                }
                if (key_ == "confidence") return p.confidence = narrow_to_float(v), true;
                if (key_ == "entropy") return p.entropy = narrow_to_float(v), true;
                if (key_ == "kl") return p.kl = narrow_to_float(v), true;
                return false;
            }
            case Where::Candidate: {
                Candidate& c = out.positions.back().top.back();
                if (key_ == "id") return is_int && (c.id = int(pending_int_), true);
                if (key_ == "p") return c.p = narrow_to_float(v), true;
                return false;
            }
            default: return false;
        }
    }

    Where where_ = Where::Start;
    std::string key_;
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
