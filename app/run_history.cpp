#include "run_history.h"

#include <stdexcept>
#include <string>

void RunHistory::reset(TraceHeaderPtr header) {
    header_ = std::move(header);
    summary_.reset();
    stopped_ = false;
    steps_.clear();
    totals_.clear();
    timeline_.reset(header_ ? header_->gen_length : 0);
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
    t.paper_flops += s->strategy_flops();
    t.paper_flops_dense += s->paper_flops_dense;
    t.wall_ms += s->wall_ms;
    t.unmasked += s->newly_unmasked;
    totals_.push_back(t);
    timeline_.append(*s);
    steps_.push_back(std::move(s));
}
