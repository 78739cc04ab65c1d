#pragma once
// Everything recorded about one run: the header, every step's trace (so any past step can be
// shown again) and what is derived from them incrementally (the engine's position timeline,
// cumulative costs). Plain C++, no QObject: the GUI thread owns it, tests build it directly.
#include <optional>
#include <vector>

#include "decode/revision_counters.h"
#include "trace/position_timeline.h"
#include "trace_ptr.h"

struct StepTotals {
    double paper_flops = 0, paper_flops_dense = 0;  // cumulative up to and including the step; StepTrace::strategy_flops()
    double wall_ms = 0;
    long long unmasked = 0;
    double flops_ratio() const { return paper_flops_dense > 0 ? paper_flops / paper_flops_dense : 0; }
    double e2e_tps() const { return wall_ms > 0 ? unmasked / (wall_ms / 1000.0) : 0; }
};

class RunHistory {
public:
    void reset(TraceHeaderPtr header);
    void append(StepTracePtr step);  // steps arrive in order; throws std::logic_error otherwise
    // `stopped`: the user stopped the run; its summary covers the steps done, and a trace file of
    // it is written cut short (no summary line), as the trace format says.
    void setSummary(TraceSummaryPtr summary, bool stopped = false) {
        summary_ = std::move(summary);
        stopped_ = stopped;
    }

    const TraceHeaderPtr& header() const { return header_; }
    const TraceSummaryPtr& summary() const { return summary_; }
    bool stopped() const { return stopped_; }
    int stepCount() const { return int(steps_.size()); }
    bool empty() const { return steps_.empty(); }
    const dlm::StepTrace& step(int i) const { return *steps_.at(size_t(i)); }
    const StepTracePtr& stepPtr(int i) const { return steps_.at(size_t(i)); }
    const StepTotals& totals(int i) const { return totals_.at(size_t(i)); }
    int positionCount() const;  // generated positions (from the header, else the first step)

    // When each position was revealed / locked, as of any step (dlm::PositionTimeline).
    const dlm::PositionTimeline& timeline() const { return timeline_; }
    int revealStep(int pos) const { return timeline_.reveal_step(pos); }
    int lockStep(int pos) const { return timeline_.lock_step(pos); }
    // A step's remasks, flip-flops, replacements... as the engine counted them (its counters; a
    // step that commits and remasks one position shows one event but counts both).
    dlm::RevisionCounts revisions(int step) const { return dlm::RevisionCounts::from(this->step(step).counters); }

private:
    TraceHeaderPtr header_;
    TraceSummaryPtr summary_;
    bool stopped_ = false;
    std::vector<StepTracePtr> steps_;
    std::vector<StepTotals> totals_;
    dlm::PositionTimeline timeline_;
};
