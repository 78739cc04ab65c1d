#pragma once
// Everything recorded about one run: the header, every step's trace (so any past step can be
// shown again) and what is derived from them incrementally (reveal / lock step per position,
// cumulative costs). Plain C++, no QObject: the GUI thread owns it, tests build it directly.
#include <array>
#include <optional>
#include <vector>

#include "trace_ptr.h"

struct StepTotals {
    double paper_flops = 0, paper_flops_dense = 0;  // cumulative up to and including the step
    double wall_ms = 0;
    long long unmasked = 0;
    double flops_ratio() const { return paper_flops_dense > 0 ? paper_flops / paper_flops_dense : 0; }
    double e2e_tps() const { return wall_ms > 0 ? unmasked / (wall_ms / 1000.0) : 0; }
};

class RunHistory {
public:
    void reset(TraceHeaderPtr header);
    void append(StepTracePtr step);  // steps arrive in order; throws std::logic_error otherwise
    void setSummary(TraceSummaryPtr summary) { summary_ = std::move(summary); }

    const TraceHeaderPtr& header() const { return header_; }
    const TraceSummaryPtr& summary() const { return summary_; }
    int stepCount() const { return int(steps_.size()); }
    bool empty() const { return steps_.empty(); }
    const dlm::StepTrace& step(int i) const { return *steps_.at(size_t(i)); }
    const StepTracePtr& stepPtr(int i) const { return steps_.at(size_t(i)); }
    const StepTotals& totals(int i) const { return totals_.at(size_t(i)); }
    int positionCount() const;  // generated positions (from the header, else the first step)

    // The step at which a position was first unmasked / locked (-1 = not yet); the latest one
    // when a remask undid an earlier reveal.
    int revealStep(int pos) const { return at(reveal_, pos); }
    int lockStep(int pos) const { return at(lock_, pos); }
    // Counts of events of one kind in a step (remasks, flip-flops, ...).
    int eventCount(int step, dlm::PosEvent e) const;

private:
    static int at(const std::vector<int>& v, int i) { return i >= 0 && size_t(i) < v.size() ? v[size_t(i)] : -1; }
    TraceHeaderPtr header_;
    TraceSummaryPtr summary_;
    std::vector<StepTracePtr> steps_;
    std::vector<StepTotals> totals_;
    std::vector<int> reveal_, lock_;
    std::vector<std::array<int, 8>> event_counts_;
};
