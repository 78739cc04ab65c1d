#include "trace_files.h"

#include "run_view.h"
#include "util/error.h"

void showTrace(RunView& view, dlm::TraceFile file) {
    view.setSource(QString());  // a file, not a live decode
    view.begin(std::make_shared<const dlm::TraceHeader>(std::move(file.header)));
    for (auto& s : file.steps) view.record(std::make_shared<const dlm::StepTrace>(std::move(s)));
    view.flush();
    if (file.summary) view.finish(std::make_shared<const dlm::TraceSummary>(*file.summary));
}

void writeTraceFile(const RunHistory& run, const std::filesystem::path& path) {
    if (!run.header()) throw dlm::Error("nothing to save: run a decode or open a trace first");
    dlm::TraceWriter w(path);
    w.write_header(*run.header());
    for (int i = 0; i < run.stepCount(); ++i) w.write_step(run.step(i));
    if (run.summary() && !run.stopped()) w.write_summary(*run.summary());  // a stopped run is cut short
    w.flush();
}
