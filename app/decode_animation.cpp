#include "decode_animation.h"

#include <algorithm>
#include <cmath>
#include <set>

#include <QFileInfo>
#include <QFontDatabase>
#include <QFontMetricsF>
#include <QPainter>
#include <QSaveFile>

#include "apng_writer.h"
#include "canvas_model.h"
#include "cell_style.h"

namespace {

constexpr double kWidth = 960, kMargin = 8, kCaption = 28, kPanelGap = 12;
constexpr int kLastFrameMs = 3000, kFirstFrameMinMs = 500;

// What the frames show, in the legend's order: the states and events that occur in the run (a
// masked cell always), so a slide explains its own colours and marks.
struct LegendEntry {
    QColor color;
    QString glyph, name;  // glyph: an event's mark; empty for a state
};

std::vector<LegendEntry> legendOf(const DecodeAnimation& a) {
    std::set<dlm::PosState> states{dlm::PosState::Masked};
    std::set<dlm::PosEvent> events;
    for (const DecodePanel& panel : a.panels) {
        // The steps this panel shows: a run that ends before the range stays at its last step.
        const int steps = int(panel.steps.size());
        for (int k = std::min(a.firstStep, steps); k <= std::min(a.shownLast(), steps); ++k) {
            if (k == 0) continue;
            for (const auto& p : panel.steps[size_t(k - 1)]->positions) {
                states.insert(p.state);
                if (p.event != dlm::PosEvent::None) events.insert(p.event);
            }
        }
    }
    std::vector<LegendEntry> out;
    for (auto s : cell_style::legendStates())
        if (states.count(s)) out.push_back({cell_style::stateColor(s), {}, cell_style::stateLabel(s)});
    for (auto e : cell_style::legendEvents())
        if (events.count(e)) out.push_back({cell_style::eventColor(e), cell_style::eventGlyph(e), cell_style::eventLabel(e)});
    return out;
}

// Lays the legend out in rows within `width` from `top`; paints it when given a painter. Returns
// its height.
double layOutLegend(const std::vector<LegendEntry>& legend, const QFont& font, double width, double top, QPainter* g) {
    const QFontMetricsF metrics(font);
    constexpr double swatch = 14, row = 22, spacing = 14;
    double x = 0, y = top;
    for (const LegendEntry& e : legend) {
        const double w = swatch + 5 + metrics.horizontalAdvance(e.name);
        if (x > 0 && x + w > width) x = 0, y += row;
        if (g) {
            const QRectF box(kMargin + x, y + (row - swatch) / 2, swatch, swatch);
            if (e.glyph.isEmpty()) {
                g->setPen(Qt::NoPen);
                g->setBrush(e.color);
            } else {
                g->setPen(QPen(e.color, 2));
                g->setBrush(Qt::NoBrush);
            }
            g->drawRoundedRect(box, 3, 3);
            QFont small = font;
            small.setPixelSize(9);
            small.setBold(true);
            g->setFont(small);
            g->setPen(e.color);
            g->drawText(box, Qt::AlignCenter, e.glyph);
            g->setFont(font);
            g->setPen(e.glyph.isEmpty() ? cell_style::textColor() : cell_style::dimText());
            g->drawText(QRectF(box.right() + 5, y, w, row), Qt::AlignLeft | Qt::AlignVCenter, e.name);
        }
        x += w + spacing;
    }
    return legend.empty() ? 0 : y + row - top;
}

QFont captionFont() {
    QFont font = QFontDatabase::systemFont(QFontDatabase::GeneralFont);
    font.setPixelSize(13);
    return font;
}

// The picture around the grids: how wide (the widest grid's, margins included), where the legend
// goes and what it holds.
struct Frame {
    std::vector<LegendEntry> legend;
    double legendTop = 0;
    QSizeF logical;
};

Frame frameOf(const DecodeAnimation& a, const QFont& font) {
    Frame f;
    double width = 0;
    for (size_t i = 0; i < a.panels.size(); ++i) {
        const GridGeometry geo = a.geometry(i);
        width = std::max(width, geo.columns * (geo.cellWidth + geo.gap) - geo.gap + 2 * kMargin);
    }
    f.legend = legendOf(a);
    const size_t last = a.panels.size() - 1;
    f.legendTop = a.gridOrigin(last).y() + a.geometry(last).contentHeight() + kMargin;
    const double legendHeight = layOutLegend(f.legend, font, width - 2 * kMargin, f.legendTop, nullptr);
    f.logical = QSizeF(width, f.legendTop + legendHeight + kMargin);
    return f;
}

QSize pixelsOf(QSizeF logical, qreal dpr) {
    return {int(std::ceil(logical.width() * dpr)), int(std::ceil(logical.height() * dpr))};
}

}  // namespace

int DecodeAnimation::steps() const {
    size_t steps = 0;
    for (const DecodePanel& p : panels) steps = std::max(steps, p.steps.size());
    return int(steps);
}

int DecodeAnimation::shownLast() const { return lastStep < 0 ? steps() : lastStep; }

int DecodeAnimation::frames() const { return std::max(0, shownLast() - firstStep + 1); }

int DecodeAnimation::delayMs(int frame) const {
    const int stepMs = int(std::lround(1000.0 / stepsPerSecond));
    return frame == frames() - 1 ? kLastFrameMs : frame == 0 ? std::max(stepMs, kFirstFrameMinMs) : stepMs;
}

QString DecodeAnimation::problem() const {
    if (panels.empty()) return QStringLiteral("the run has no steps");
    for (const DecodePanel& p : panels)
        if (p.steps.empty() || p.positions <= 0) return QStringLiteral("a run has no steps");
    const int n = steps();
    if (firstStep < 0 || firstStep > n || shownLast() > n)
        return QStringLiteral("the steps run from 0 (the masked canvas) to %1; there is no step %2")
            .arg(n).arg(firstStep < 0 || firstStep > n ? firstStep : shownLast());
    if (shownLast() < firstStep)
        return QStringLiteral("the last step shown (%1) comes before the first (%2)").arg(shownLast()).arg(firstStep);
    if (!(stepsPerSecond >= kMinStepsPerSecond && stepsPerSecond <= kMaxStepsPerSecond))
        return QStringLiteral("the speed is %1 to %2 steps a second, not %3").arg(kMinStepsPerSecond).arg(kMaxStepsPerSecond).arg(stepsPerSecond);
    if (scale != 0 && scale != 1 && scale != 2) return QStringLiteral("the scale is 1 or 2 pixels a point, not %1").arg(scale);
    return {};
}

GridGeometry DecodeAnimation::geometry(size_t panel) const {
    return GridGeometry::forCanvas(panels.at(panel).positions, kWidth);
}

QPointF DecodeAnimation::gridOrigin(size_t panel) const {
    double top = 0;
    for (size_t i = 0; i < panel; ++i) top += kCaption + geometry(i).contentHeight() + kPanelGap;
    return {kMargin, top + kCaption};
}

qreal DecodeAnimation::pixelRatio() const {
    if (scale > 0) return scale;
    for (const DecodePanel& p : panels)
        if (p.positions > 384) return 1.0;
    return 2.0;
}

QSize DecodeAnimation::pixelSize() const {
    if (panels.empty()) return {};
    const QSizeF logical = frameOf(*this, captionFont()).logical;
    return pixelsOf(logical, pixelRatio());
}

QString writeDecodeAnimation(const DecodeAnimation& a, const QString& path,
                             const std::function<void(int, int)>& progress, const std::atomic<bool>* cancel) {
    const QString name = QFileInfo(path).fileName();
    if (const QString problem = a.problem(); !problem.isEmpty())
        return QStringLiteral("Could not write %1: %2").arg(name, problem);
    const qreal dpr = a.pixelRatio();
    const QFont font = captionFont();
    const QFontMetricsF metrics(font);
    const Frame frame = frameOf(a, font);
    const QSizeF logical = frame.logical;
    const QSize pixels = pixelsOf(logical, dpr);

    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) return QStringLiteral("Could not write %1: %2").arg(path, file.errorString());
    const int frames = a.frames();
    ApngWriter writer(file, pixels, frames);

    QImage image(pixels, QImage::Format_RGB32);
    image.setDevicePixelRatio(dpr);
    image.fill(cell_style::background());
    GridPainter cells;
    {
        QPainter g(&image);  // the legend stays: drawn once, it costs later frames nothing
        g.setRenderHint(QPainter::Antialiasing);
        g.setRenderHint(QPainter::TextAntialiasing);
        layOutLegend(frame.legend, font, logical.width() - 2 * kMargin, frame.legendTop, &g);
    }
    std::vector<std::vector<CanvasModel::CellKey>> painted;  // what each cell shows now
    for (const DecodePanel& p : a.panels) painted.emplace_back(size_t(p.positions));

    for (int f = 0; f < frames; ++f) {
        if (cancel && cancel->load()) return QStringLiteral("Stopped writing %1").arg(name);
        QPainter g(&image);
        g.setRenderHint(QPainter::Antialiasing);
        g.setRenderHint(QPainter::TextAntialiasing);
        for (size_t i = 0; i < a.panels.size(); ++i) {
            const DecodePanel& panel = a.panels[i];
            const GridGeometry geo = a.geometry(i);
            const QPointF origin = a.gridOrigin(i);
            const int shown = a.firstStep + f;  // the step this frame shows, as the caption counts
            const int steps = int(panel.steps.size()), step = std::min(shown, steps);

            const QRectF caption(kMargin, origin.y() - kCaption, logical.width() - 2 * kMargin, kCaption);
            g.fillRect(caption.adjusted(-kMargin, 0, kMargin, 0), cell_style::background());
            QString where = shown == 0       ? QStringLiteral("masked, step 0 of %1").arg(steps)
                            : shown <= steps ? QStringLiteral("step %1 of %2").arg(shown).arg(steps)
                                             : QStringLiteral("done in %1 steps").arg(steps);
            if (step == steps && !panel.verdict.isEmpty()) where += QStringLiteral("  ·  ") + panel.verdict;
            g.setFont(font);  // the cells of the panel above set their own
            g.setPen(cell_style::textColor());
            g.drawText(caption, Qt::AlignRight | Qt::AlignVCenter, where);
            const double titleWidth = std::max(0.0, caption.width() - metrics.horizontalAdvance(where) - 16);
            g.drawText(QRectF(caption.x(), caption.y(), titleWidth, kCaption), Qt::AlignLeft | Qt::AlignVCenter,
                       metrics.elidedText(panel.title, Qt::ElideRight, titleWidth));

            std::vector<const dlm::PositionTrace*> at(size_t(panel.positions), nullptr);
            if (step > 0)
                for (const auto& p : panel.steps[size_t(step - 1)]->positions)
                    if (p.pos >= 0 && p.pos < panel.positions) at[size_t(p.pos)] = &p;
            for (int pos = 0; pos < panel.positions; ++pos) {  // only what changed is repainted, as the app's grid does
                const CanvasModel::CellKey look = CanvasModel::cellKey(at[size_t(pos)]);
                if (f > 0 && look == painted[i][size_t(pos)]) continue;
                painted[i][size_t(pos)] = look;
                cells.paintCell(g, geo.cellRect(pos).translated(origin), at[size_t(pos)], pos, panel.blockLength, 1.0, false);
            }
        }
        g.end();

        if (!writer.addFrame(image, a.delayMs(f))) return QStringLiteral("Could not write %1: %2").arg(path, writer.error());
        if (progress) progress(f + 1, frames);
    }
    if (!writer.finish() || !file.commit())
        return QStringLiteral("Could not write %1: %2").arg(path, writer.error().isEmpty() ? file.errorString() : writer.error());
    return {};
}
