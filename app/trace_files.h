#pragma once
// A run as a file: the NDJSON trace the CLI writes (trace/trace_io.h) shown in a view, and a
// view's run written back. Reading is dlm::read_trace, done before anything on screen changes, so
// a file that cannot be read leaves the view as it was.
#include <filesystem>

#include "trace/trace_io.h"

class RunView;
class RunHistory;

// Replaces what `view` shows with the trace.
void showTrace(RunView& view, dlm::TraceFile file);
// Throws dlm::Error with the reason when there is no run or the file cannot be written.
void writeTraceFile(const RunHistory& run, const std::filesystem::path& path);
