#include "live_view.h"

#include <unistd.h>
#include <sys/ioctl.h>

#include <cstdio>
#include <cstdlib>
#include <ostream>
#include <string>

namespace dlm::cli {

namespace {

// Display cells of UTF-8 text, counted as code points (wide CJK glyphs are undercounted; the
// only effect is a frame that is erased one line short).
int display_width(const std::string& s) {
    int n = 0;
    for (unsigned char c : s)
        if ((c & 0xC0) != 0x80) ++n;
    return n;
}

// Token text made safe for a one-line canvas: line breaks and tabs shown as symbols, other
// control bytes dropped (they would move the cursor and break the redraw).
std::string printable(const std::string& text) {
    std::string out;
    for (unsigned char c : text) {
        if (c == '\n') out += "↵";
        else if (c == '\t') out += "→";
        else if (c < 0x20 || c == 0x7f) continue;
        else out += static_cast<char>(c);
    }
    return out;
}

const char* event_colour(PosEvent e) {
    switch (e) {
        case PosEvent::Unmask: return "\033[1;32m";    // bold green: committed this step
        case PosEvent::FlipFlop: return "\033[1;35m";  // magenta: back to an earlier token
        case PosEvent::Replace: return "\033[1;33m";   // yellow: changed in place
        case PosEvent::Remask: return "\033[1;31m";    // red: taken back
        case PosEvent::Lock: return "\033[2m";         // dim: stops being computed
        default: return nullptr;
    }
}

}  // namespace

LiveView::LiveView(std::ostream& out) : out_(out) {
    terminal_ = ::isatty(STDERR_FILENO) == 1;
    colour_ = terminal_ && std::getenv("NO_COLOR") == nullptr;
    if (terminal_) {
        winsize ws{};
        if (::ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) columns_ = ws.ws_col;
    }
}

void LiveView::update(const StepTrace& step, int planned_steps, int masks_left) {
    std::string canvas;
    int width = 0;
    for (const auto& p : step.positions) {
        const std::string text = p.state == PosState::Masked ? std::string("·") : printable(p.text);
        width += display_width(text);
        const char* colour = colour_ ? event_colour(p.event) : nullptr;
        if (colour)
            canvas += colour + (p.event == PosEvent::Remask ? std::string("·") : text) + "\033[0m";
        else
            canvas += text;
    }
    char progress[200];
    std::snprintf(progress, sizeof progress,
                  "step %d/%d  block %d  +%d unmasked  %d masks left  rows %d/%d  %.1f ms", step.step + 1,
                  planned_steps, step.block, step.newly_unmasked, masks_left, step.rows_computed, step.rows_total,
                  step.wall_ms);

    if (terminal_ && lines_drawn_ > 0) out_ << "\033[" << lines_drawn_ << "F\033[J";
    out_ << canvas << '\n' << progress << '\n';
    out_.flush();
    const int canvas_lines = width == 0 ? 1 : (width + columns_ - 1) / columns_;
    const int progress_lines = (display_width(progress) + columns_ - 1) / columns_;
    lines_drawn_ = canvas_lines + progress_lines;
}

void LiveView::finish() {
    lines_drawn_ = 0;
    out_.flush();
}

}  // namespace dlm::cli
