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

constexpr double kWidth = 960, kMargin = 8, kCaption = 28;
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
    for (const auto& step : a.steps)
        for (const auto& p : step->positions) {
            states.insert(p.state);
            if (p.event != dlm::PosEvent::None) events.insert(p.event);
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

}  // namespace

GridGeometry DecodeAnimation::geometry() const { return GridGeometry::forCanvas(positions, kWidth); }

QPointF DecodeAnimation::gridOrigin() { return {kMargin, kCaption}; }

qreal DecodeAnimation::pixelRatio() const { return positions > 384 ? 1.0 : 2.0; }

QString writeDecodeAnimation(const DecodeAnimation& a, const QString& path,
                             const std::function<void(int, int)>& progress, const std::atomic<bool>* cancel) {
    const QString name = QFileInfo(path).fileName();
    if (a.steps.empty() || a.positions <= 0) return QStringLiteral("Could not write %1: the run has no steps").arg(name);
    const GridGeometry geo = a.geometry();
    const qreal dpr = a.pixelRatio();
    const double gridWidth = geo.columns * (geo.cellWidth + geo.gap) - geo.gap;
    QFont font = QFontDatabase::systemFont(QFontDatabase::GeneralFont);
    font.setPixelSize(13);
    const QFontMetricsF metrics(font);
    const std::vector<LegendEntry> legend = legendOf(a);
    const double legendTop = kCaption + geo.contentHeight() + kMargin;
    const double legendHeight = layOutLegend(legend, font, gridWidth, legendTop, nullptr);
    const QSizeF logical(gridWidth + 2 * kMargin, legendTop + legendHeight + kMargin);
    const QSize pixels(int(std::ceil(logical.width() * dpr)), int(std::ceil(logical.height() * dpr)));
    const QPointF origin = DecodeAnimation::gridOrigin();

    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) return QStringLiteral("Could not write %1: %2").arg(path, file.errorString());
    const int frames = int(a.steps.size()) + 1;  // the masked canvas, then every step
    ApngWriter writer(file, pixels, frames);

    QImage image(pixels, QImage::Format_RGB32);
    image.setDevicePixelRatio(dpr);
    image.fill(cell_style::background());
    GridPainter cells;
    {
        QPainter g(&image);  // the legend stays: drawn once, it costs later frames nothing
        g.setRenderHint(QPainter::Antialiasing);
        g.setRenderHint(QPainter::TextAntialiasing);
        layOutLegend(legend, font, gridWidth, legendTop, &g);
    }
    const int stepMs = int(std::lround(1000.0 / std::clamp(a.stepsPerSecond, 0.5, 240.0)));
    std::vector<CanvasModel::CellKey> shown(size_t(a.positions));
    std::vector<const dlm::PositionTrace*> at(size_t(a.positions));

    for (int f = 0; f < frames; ++f) {
        if (cancel && cancel->load()) return QStringLiteral("Stopped writing %1").arg(name);
        QPainter g(&image);
        g.setRenderHint(QPainter::Antialiasing);
        g.setRenderHint(QPainter::TextAntialiasing);

        const QRectF caption(kMargin, 0, gridWidth, kCaption);
        g.fillRect(QRectF(0, 0, logical.width(), kCaption), cell_style::background());
        const bool last = f == frames - 1;
        QString where = f == 0 ? QStringLiteral("masked, step 0 of %1").arg(frames - 1)
                               : QStringLiteral("step %1 of %2").arg(f).arg(frames - 1);
        if (last && !a.verdict.isEmpty()) where += QStringLiteral("  ·  ") + a.verdict;
        g.setFont(font);
        g.setPen(cell_style::textColor());
        g.drawText(caption, Qt::AlignRight | Qt::AlignVCenter, where);
        const double titleWidth = std::max(0.0, gridWidth - metrics.horizontalAdvance(where) - 16);
        g.drawText(QRectF(caption.x(), 0, titleWidth, kCaption), Qt::AlignLeft | Qt::AlignVCenter,
                   metrics.elidedText(a.title, Qt::ElideRight, titleWidth));

        std::fill(at.begin(), at.end(), nullptr);
        if (f > 0)
            for (const auto& p : a.steps[size_t(f - 1)]->positions)
                if (p.pos >= 0 && p.pos < a.positions) at[size_t(p.pos)] = &p;
        for (int pos = 0; pos < a.positions; ++pos) {  // only what changed is repainted, as the app's grid does
            const CanvasModel::CellKey look = CanvasModel::cellKey(at[size_t(pos)]);
            if (f > 0 && look == shown[size_t(pos)]) continue;
            shown[size_t(pos)] = look;
            const QRectF r = geo.cellRect(pos).translated(origin);
            cells.paintCell(g, r, at[size_t(pos)], pos, a.blockLength, 1.0, false);
        }
        g.end();

        const int delay = last ? kLastFrameMs : f == 0 ? std::max(stepMs, kFirstFrameMinMs) : stepMs;
        if (!writer.addFrame(image, delay)) return QStringLiteral("Could not write %1: %2").arg(path, writer.error());
        if (progress) progress(f + 1, frames);
    }
    if (!writer.finish() || !file.commit())
        return QStringLiteral("Could not write %1: %2").arg(path, writer.error().isEmpty() ? file.errorString() : writer.error());
    return {};
}
