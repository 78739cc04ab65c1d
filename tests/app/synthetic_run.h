#pragma once
// A synthetic, deterministic run (header + steps) for testing the UI in isolation: positions are
// unmasked in a scrambled order, some lock later, a few get remasked and re-revealed (flip-flop).
// It stands in for the engine ONLY where a test checks views and models, never engine results.
#include <vector>

#include "trace_ptr.h"

struct SyntheticRun {
    TraceHeaderPtr header;
    std::vector<StepTracePtr> steps;
    TraceSummaryPtr summary;
};

SyntheticRun makeSyntheticRun(int positions, int steps, bool withLocks = true);
