#include "decode_animation.h"

#include <algorithm>
#include <cmath>

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
    const QSizeF logical(gridWidth + 2 * kMargin, kCaption + geo.contentHeight() + kMargin);
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
    QFont font = QFontDatabase::systemFont(QFontDatabase::GeneralFont);
    font.setPixelSize(13);
    const QFontMetricsF metrics(font);
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
