#pragma once
// The revision counters of a run (the COVER paper, §4 and §6.1), counted in one place from the
// per-position events of each step:
//  - remasks: ReMask operations (an unmasked position reset to [MASK]);
//  - effective_remasks: remasks whose position was later re-unmasked to a token different from
//    the one it held right before the remask (§6.1 "No. Eff. ReMask"), counted at the step of
//    the re-unmask;
//  - flipflops: remasks later undone by restoring the same token (§4), i.e. the ineffective
//    ones, counted at the step of the re-unmask (the canvas marks it with the flipflop event);
//  - replaces: in-place token changes (COVER's REPLACE; §6.1 counts them as effective);
//  - keeps: verified positions kept unchanged (COVER's KEEP).
// A remask still pending at the end of a run is in `remasks` but in neither of the other two.
#include <map>
#include <span>
#include <string>
#include <vector>

#include "trace/step_trace.h"

namespace dlm {

struct RevisionCounts {
    long long remasks = 0;
    long long effective_remasks = 0;
    long long flipflops = 0;
    long long replaces = 0;
    long long keeps = 0;

    RevisionCounts& operator+=(const RevisionCounts& o);
    // Writes the non-zero counts under their names ("remasks", "effective_remasks", "flipflops",
    // "replaces", "keeps") into a trace's counters, adding to what is there.
    void add_to(std::map<std::string, double>& counters) const;
    // §6.1 Ratio := effective remasks / total remasks. With replaces counted as effective (the
    // footnote for COVER) the denominator becomes remasks + replaces. NaN when the denominator is 0.
    double effective_ratio(bool replaces_count_as_effective) const;
    // Reads the counts back from a summary's counters (missing keys are 0).
    static RevisionCounts from(const std::map<std::string, double>& counters);
};

class RevisionCounter {
public:
    explicit RevisionCounter(int positions = 0) { reset(positions); }
    void reset(int positions);
    // One step's events, indexed by position (PosEvent::None where nothing happened). Returns the
    // counts of this step and adds them to the run's totals.
    RevisionCounts observe(std::span<const PosEvent> events) {
        RevisionCounts c = observe_commits(events);
        c += observe_revisions(events);
        return c;
    }
    // The same in two halves, for a step that may commit and then remask the same position (Saber
    // backtracks over this step's commits; the canvas keeps one event per position): the unmask /
    // flipflop events right after the commits, then the remask / replace / keep events at the end.
    RevisionCounts observe_commits(std::span<const PosEvent> events);
    RevisionCounts observe_revisions(std::span<const PosEvent> events);
    const RevisionCounts& totals() const { return totals_; }

private:
    std::vector<char> pending_remask_;  // remasked and not yet re-unmasked
    RevisionCounts totals_;
};

}  // namespace dlm
