#include "decode/revision_counters.h"

#include <cmath>
#include <limits>
#include <string>

#include "util/error.h"

namespace dlm {

RevisionCounts& RevisionCounts::operator+=(const RevisionCounts& o) {
    remasks += o.remasks;
    effective_remasks += o.effective_remasks;
    flipflops += o.flipflops;
    replaces += o.replaces;
    keeps += o.keeps;
    return *this;
}

void RevisionCounts::add_to(std::map<std::string, double>& counters) const {
    auto add = [&](const char* key, long long v) {
        if (v != 0) counters[key] += static_cast<double>(v);
    };
    add("remasks", remasks);
    add("effective_remasks", effective_remasks);
    add("flipflops", flipflops);
    add("replaces", replaces);
    add("keeps", keeps);
}

double RevisionCounts::effective_ratio(bool replaces_count_as_effective) const {
    const double num = static_cast<double>(effective_remasks + (replaces_count_as_effective ? replaces : 0));
    const double den = static_cast<double>(remasks + (replaces_count_as_effective ? replaces : 0));
    return den > 0 ? num / den : std::numeric_limits<double>::quiet_NaN();
}

RevisionCounts RevisionCounts::from(const std::map<std::string, double>& counters) {
    auto get = [&](const char* key) {
        auto it = counters.find(key);
        return it == counters.end() ? 0LL : static_cast<long long>(std::llround(it->second));
    };
    RevisionCounts c;
    c.remasks = get("remasks");
    c.effective_remasks = get("effective_remasks");
    c.flipflops = get("flipflops");
    c.replaces = get("replaces");
    c.keeps = get("keeps");
    return c;
}

void RevisionCounter::reset(int positions) {
    pending_remask_.assign(static_cast<std::size_t>(positions < 0 ? 0 : positions), 0);
    totals_ = {};
}

namespace {

void check_size(std::size_t events, std::size_t positions) {
    if (events != positions)
        throw Error("revision counter: " + std::to_string(events) + " events for " + std::to_string(positions) +
                    " positions");
}

}  // namespace

RevisionCounts RevisionCounter::observe_commits(std::span<const PosEvent> events) {
    check_size(events.size(), pending_remask_.size());
    RevisionCounts c;
    for (std::size_t i = 0; i < events.size(); ++i) {
        const PosEvent e = events[i];
        if (e != PosEvent::Unmask && e != PosEvent::FlipFlop) continue;
        // The canvas only reports a flip-flop for a position that was remasked before.
        if (pending_remask_[i]) ++(e == PosEvent::FlipFlop ? c.flipflops : c.effective_remasks);
        pending_remask_[i] = 0;
    }
    totals_ += c;
    return c;
}

RevisionCounts RevisionCounter::observe_revisions(std::span<const PosEvent> events) {
    check_size(events.size(), pending_remask_.size());
    RevisionCounts c;
    for (std::size_t i = 0; i < events.size(); ++i) {
        switch (events[i]) {
            case PosEvent::Remask:
                ++c.remasks;
                pending_remask_[i] = 1;
                break;
            case PosEvent::Replace: ++c.replaces; break;
            case PosEvent::Keep: ++c.keeps; break;
            default: break;
        }
    }
    totals_ += c;
    return c;
}

}  // namespace dlm
