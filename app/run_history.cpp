#include "run_history.h"

#include <array>
#include <stdexcept>
#include <string>

void RunHistory::reset(TraceHeaderPtr header) {
    header_ = std::move(header);
    summary_.reset();
    steps_.clear();
    totals_.clear();
    reveal_.clear();
    lock_.clear();
    event_counts_.clear();
}

int RunHistory::positionCount() const {
    if (header_ && header_->gen_length > 0) return header_->gen_length;
    return steps_.empty() ? 0 : int(steps_.front()->positions.size());
}

void RunHistory::append(StepTracePtr s) {
    if (!s) throw std::logic_error("RunHistory::append: null step");
    if (s->step != int(steps_.size()))
        throw std::logic_error("step " + std::to_string(s->step) + " arrived after " +
                               std::to_string(steps_.size()) + " steps");
    StepTotals t = totals_.empty() ? StepTotals{} : totals_.back();
    t.paper_flops += s->paper_flops;
    t.paper_flops_dense += s->paper_flops_dense;
    t.wall_ms += s->wall_ms;
    t.unmasked += s->newly_unmasked;
    totals_.push_back(t);

    std::array<int, 8> counts{};
    const int n = int(s->positions.size());
    if (int(reveal_.size()) < n) {
        reveal_.resize(size_t(n), -1);
        lock_.resize(size_t(n), -1);
    }
    for (const auto& p : s->positions) {
        const auto e = size_t(p.event);
        if (e < counts.size()) ++counts[e];
        if (p.pos < 0 || p.pos >= n) continue;
        switch (p.event) {
        case dlm::PosEvent::Unmask:
        case dlm::PosEvent::FlipFlop: reveal_[size_t(p.pos)] = s->step; break;
        case dlm::PosEvent::Remask: reveal_[size_t(p.pos)] = -1; lock_[size_t(p.pos)] = -1; break;
        case dlm::PosEvent::Lock: lock_[size_t(p.pos)] = s->step; break;
        case dlm::PosEvent::Unlock: lock_[size_t(p.pos)] = -1; break;
        default: break;
        }
        // A position can appear unmasked without an event (e.g. a trace written by a strategy
        // that commits silently); record the first step it was seen so.
        if (reveal_[size_t(p.pos)] < 0 && p.state != dlm::PosState::Masked && p.state != dlm::PosState::Prompt)
            reveal_[size_t(p.pos)] = s->step;
    }
    event_counts_.push_back(counts);
    steps_.push_back(std::move(s));
}

int RunHistory::eventCount(int step, dlm::PosEvent e) const {
    if (step < 0 || size_t(step) >= event_counts_.size()) return 0;
    return event_counts_[size_t(step)][size_t(e)];
}
