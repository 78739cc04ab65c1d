#pragma once
// `run --live`: the canvas redrawn after every step on stderr (masks as '·') under a one-line
// progress. On a terminal the previous frame is overwritten in place (ANSI cursor movement) and
// this step's events are coloured; into a file or pipe every frame is appended as plain lines.
#include <iosfwd>

#include "trace/step_trace.h"

namespace dlm::cli {

class LiveView {
public:
    explicit LiveView(std::ostream& out);
    // `planned_steps` and `masks_left` come from the session after the step.
    void update(const StepTrace& step, int planned_steps, int masks_left);
    // Leaves the last frame on screen and moves below it.
    void finish();

private:
    std::ostream& out_;
    bool terminal_ = false;
    bool colour_ = false;
    int columns_ = 80;
    int lines_drawn_ = 0;
};

}  // namespace dlm::cli
