// An NDJSON step trace (header, steps, summary) as `trace show` and the app read it.
#include <sstream>

#include "fuzz_support.h"
#include "trace/trace_io.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
    dlm::fuzz::expect_refusal_or_success([&] {
        std::istringstream in{std::string(dlm::fuzz::as_text(data, size))};
        const dlm::TraceFile f = dlm::parse_trace(in, "trace.ndjson");
        (void)f.steps.size();
    });
    return 0;
}
