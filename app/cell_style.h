#pragma once
// The grid's visual language in one place (design.md §4): a colour per position state, a mark
// colour per event, and how token text is made visible (spaces, newlines, special tokens). The
// QML Theme and the legend read the same values through AppController::palette().
#include <vector>

#include <QColor>
#include <QString>

#include "trace/step_trace.h"

namespace cell_style {

QColor stateColor(dlm::PosState s);
QColor eventColor(dlm::PosEvent e);
QString stateLabel(dlm::PosState s);
QString eventLabel(dlm::PosEvent e);
// A short glyph drawn in the cell's corner for the event of the shown step.
QString eventGlyph(dlm::PosEvent e);
// The states and the events in the order legends list them.
const std::vector<dlm::PosState>& legendStates();
const std::vector<dlm::PosEvent>& legendEvents();

QColor background();
QColor textColor();
QColor dimText();
QColor blockBoundary();

// Cell fill: the state colour, shaded by confidence for states that have one (NaN = unshaded).
QColor shadedFill(dlm::PosState s, float confidence);

struct DisplayToken {
    QString text;        // what to draw
    bool special = false;  // draw as a pill (<|eot|>, <eos>, ...)
};
// Makes a token's text visible in a cell: leading/trailing spaces become '·', a newline '↵', a
// tab '⇥', control characters '␀'-style pictures, an empty string '∅'. Special tokens keep their
// literal piece and are flagged for the pill style. Invalid UTF-8 bytes show as U+FFFD.
DisplayToken displayToken(const std::string& text, bool special);
// A special token's name inside its delimiters ("endoftext" for "<|endoftext|>", "s" for "<s>",
// "CLS" for "[CLS]"): the grid draws it in a pill, which already says it is special.
QString specialName(const QString& token);
// Heuristic for traces: a piece looking like <...>, <|...|> or [...] is a special token.
bool looksSpecial(const std::string& text);

}  // namespace cell_style
