#pragma once
// Step traces cross from the worker thread to the GUI thread as shared, immutable values: a
// queued signal then copies one pointer, never the per-position vectors.
#include <memory>

#include <QMetaType>

#include "trace/step_trace.h"

using StepTracePtr = std::shared_ptr<const dlm::StepTrace>;
using TraceHeaderPtr = std::shared_ptr<const dlm::TraceHeader>;
using TraceSummaryPtr = std::shared_ptr<const dlm::TraceSummary>;

Q_DECLARE_METATYPE(StepTracePtr)
Q_DECLARE_METATYPE(TraceHeaderPtr)
Q_DECLARE_METATYPE(TraceSummaryPtr)
