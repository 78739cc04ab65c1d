#include "cell_style.h"

#include <algorithm>
#include <cmath>

namespace cell_style {

using dlm::PosEvent;
using dlm::PosState;

QColor stateColor(PosState s) {
    switch (s) {
    case PosState::Prompt: return QColor(0x3a, 0x41, 0x4f);  // slate
    case PosState::Masked: return QColor(0x2a, 0x2e, 0x37);  // dark grey
    case PosState::Active: return QColor(0x2f, 0x8f, 0x5b);  // green: unmasked, recomputed
    case PosState::Locked: return QColor(0x3b, 0x6e, 0xd8);  // blue: converged, skipped
    case PosState::Frozen: return QColor(0x7a, 0x5c, 0xc4);  // violet: block cache
    case PosState::Seed: return QColor(0xd8, 0x9a, 0x2b);    // amber: being verified
    }
    return QColor(Qt::magenta);
}

QColor eventColor(PosEvent e) {
    switch (e) {
    case PosEvent::None: return QColor(0, 0, 0, 0);
    case PosEvent::Unmask: return QColor(0x9b, 0xf0, 0xb5);
    case PosEvent::Remask: return QColor(0xff, 0x5d, 0x5d);
    case PosEvent::Replace: return QColor(0xff, 0xa9, 0x4d);
    case PosEvent::FlipFlop: return QColor(0xff, 0x6b, 0xd6);
    case PosEvent::Lock: return QColor(0x8c, 0xc1, 0xff);
    case PosEvent::Unlock: return QColor(0xff, 0xe0, 0x66);
    case PosEvent::Keep: return QColor(0xd0, 0xd6, 0xe0);
    }
    return QColor(Qt::magenta);
}

QString stateLabel(PosState s) { return QString::fromUtf8(dlm::pos_state_name(s).data(), qsizetype(dlm::pos_state_name(s).size())); }
QString eventLabel(PosEvent e) { return QString::fromUtf8(dlm::pos_event_name(e).data(), qsizetype(dlm::pos_event_name(e).size())); }

const std::vector<PosState>& legendStates() {
    static const std::vector<PosState> order{PosState::Prompt, PosState::Masked, PosState::Active,
                                             PosState::Locked, PosState::Frozen, PosState::Seed};
    return order;
}

const std::vector<PosEvent>& legendEvents() {
    static const std::vector<PosEvent> order{PosEvent::Unmask, PosEvent::Remask, PosEvent::Replace, PosEvent::FlipFlop,
                                             PosEvent::Lock, PosEvent::Unlock, PosEvent::Keep};
    return order;
}

QString eventGlyph(PosEvent e) {
    switch (e) {
    case PosEvent::None: return {};
    case PosEvent::Unmask: return QStringLiteral("+");
    case PosEvent::Remask: return QStringLiteral("×");
    case PosEvent::Replace: return QStringLiteral("~");
    case PosEvent::FlipFlop: return QStringLiteral("⇄");
    case PosEvent::Lock: return QStringLiteral("●");
    case PosEvent::Unlock: return QStringLiteral("○");
    case PosEvent::Keep: return QStringLiteral("✓");
    }
    return {};
}

QColor background() { return QColor(0x16, 0x18, 0x1d); }
QColor textColor() { return QColor(0xe8, 0xea, 0xee); }
QColor dimText() { return QColor(0x8a, 0x90, 0x9c); }
QColor blockBoundary() { return QColor(0xf0, 0xc0, 0x40); }

QColor shadedFill(PosState s, float confidence) {
    QColor c = stateColor(s);
    if (std::isnan(confidence) || s == PosState::Masked || s == PosState::Prompt) return c;
    // Low confidence darkens toward the masked grey: the eye reads "unsure" as "less committed".
    // Quantised to the 16 shades CanvasModel::shadeBucket notifies on.
    const double q = (std::clamp(int(confidence * 16.f), 0, 15) + 0.5) / 16.0;
    const double k = 0.45 + 0.55 * q;
    const QColor base = stateColor(PosState::Masked);
    return QColor::fromRgbF(float(base.redF() + (c.redF() - base.redF()) * k),
                            float(base.greenF() + (c.greenF() - base.greenF()) * k),
                            float(base.blueF() + (c.blueF() - base.blueF()) * k));
}

bool looksSpecial(const std::string& t) {
    if (t.size() < 3) return false;
    return (t.front() == '<' && t.back() == '>') || (t.front() == '[' && t.back() == ']' && t.size() <= 12);
}

QString specialName(const QString& t) {
    for (const auto& [open, close] : {std::pair{QStringLiteral("<|"), QStringLiteral("|>")},
                                      std::pair{QStringLiteral("<"), QStringLiteral(">")},
                                      std::pair{QStringLiteral("["), QStringLiteral("]")}})
        if (t.size() > open.size() + close.size() && t.startsWith(open) && t.endsWith(close))
            return t.mid(open.size(), t.size() - open.size() - close.size());
    return t;
}

DisplayToken displayToken(const std::string& raw, bool special) {
    DisplayToken out;
    out.special = special;
    QString s = QString::fromUtf8(raw.data(), qsizetype(raw.size()));  // invalid bytes -> U+FFFD
    if (special) {
        out.text = s;
        return out;
    }
    if (s.isEmpty()) {
        out.text = QStringLiteral("∅");
        return out;
    }
    QString r;
    r.reserve(s.size());
    for (qsizetype i = 0; i < s.size(); ++i) {
        const QChar c = s[i];
        if (c == u'\n') r += QStringLiteral("↵");
        else if (c == u'\r') r += QStringLiteral("␍");
        else if (c == u'\t') r += QStringLiteral("⇥");
        else if (c == u' ' || c == QChar(0x2581)) r += QStringLiteral("·");  // ▁ is sentencepiece's space
        else if (c.unicode() < 0x20) r += QChar(0x2400 + c.unicode());       // control pictures
        else r += c;
    }
    out.text = r;
    return out;
}

}  // namespace cell_style
