#pragma once
// NDJSON trace files (design.md §5): one JSON object per line, each with "type":
//   {"type":"header", ...TraceHeader}      first line, exactly once
//   {"type":"step", ...StepTrace}          one per denoising step, in order
//   {"type":"summary", ...TraceSummary}    optional last line (absent if the run was cut short)
// NaN (and infinite) statistics are written as null and read back as NaN. Integers and strings
// round-trip exactly (invalid UTF-8 in a token text is replaced by U+FFFD); floats and doubles are
// written as their shortest text that reads back to the same value, so they round-trip exactly.
#include <filesystem>
#include <fstream>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "trace/step_trace.h"

namespace dlm {

class TraceWriter {
public:
    // Creates (truncates) the file; throws dlm::Error naming the path when it cannot.
    explicit TraceWriter(const std::filesystem::path& path);
    // Writes to a stream the caller owns (tests, stdout).
    explicit TraceWriter(std::ostream& out);
    ~TraceWriter();
    TraceWriter(const TraceWriter&) = delete;
    TraceWriter& operator=(const TraceWriter&) = delete;

    void write_header(const TraceHeader& h);
    void write_step(const StepTrace& s);
    void write_summary(const TraceSummary& s);
    void flush();  // throws dlm::Error when the stream has failed (disk full, ...)

private:
    void write_line(const std::string& line);
    std::unique_ptr<std::ofstream> file_;
    std::ostream* out_ = nullptr;
    std::string path_;
};

// The largest generation canvas a trace may describe: far past any model's context, small
// enough that a viewer can lay it out (a header claiming 2^31 positions is a corrupt file).
inline constexpr int kMaxTraceGenLength = 1 << 17;

struct TraceFile {
    TraceHeader header;
    std::vector<StepTrace> steps;
    std::optional<TraceSummary> summary;
};

// Reads a whole trace. Throws dlm::Error naming the file and line number for a malformed line,
// a missing or repeated header, an unknown "type", a step out of order, or a line after the
// summary, and for input past the limits of util/input_limits.h (a line over kTraceLineBytes,
// JSON nested deeper than kMaxJsonDepth, gen_length over kMaxTraceGenLength, a FIFO or device
// instead of a file). Blank lines are ignored.
TraceFile read_trace(const std::filesystem::path& path);
TraceFile parse_trace(std::istream& in, const std::string& source_name);

// One record <-> one JSON line (no trailing newline). The parse functions throw dlm::Error
// describing the offending field; read_trace adds the file and line.
std::string trace_header_to_json(const TraceHeader& h);
std::string step_trace_to_json(const StepTrace& s);
std::string trace_summary_to_json(const TraceSummary& s);
TraceHeader trace_header_from_json(const std::string& line);
StepTrace step_trace_from_json(const std::string& line);
TraceSummary trace_summary_from_json(const std::string& line);

}  // namespace dlm
