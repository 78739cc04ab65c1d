#include "grid_painter.h"

#include <algorithm>
#include <cmath>

#include <QFontDatabase>
#include <QFontMetricsF>

#include "canvas_model.h"
#include "cell_style.h"

GridGeometry GridGeometry::fit(int positions, double width, double cellWidth, double cellHeight) {
    GridGeometry g;
    g.positions = std::max(0, positions);
    g.cellWidth = cellWidth;
    g.cellHeight = cellHeight;
    g.columns = std::max(1, int(std::floor((width + g.gap) / (cellWidth + g.gap))));
    return g;
}

GridGeometry GridGeometry::forCanvas(int positions, double width) {
    const bool large = positions > 384;
    return fit(positions, width, large ? 44 : 60, large ? 18 : 22);
}

QRectF GridGeometry::cellRect(int pos) const {
    const int r = pos / columns, c = pos % columns;
    return QRectF(c * (cellWidth + gap), r * (cellHeight + gap), cellWidth, cellHeight);
}

int GridGeometry::cellAt(QPointF p) const {
    if (p.x() < 0 || p.y() < 0) return -1;
    const int c = int(p.x() / (cellWidth + gap)), r = int(p.y() / (cellHeight + gap));
    if (c >= columns) return -1;
    const int pos = r * columns + c;
    if (pos >= positions || !cellRect(pos).contains(p)) return -1;
    return pos;
}

double GridGeometry::contentHeight() const {
    const int rows = (positions + columns - 1) / columns;
    return rows > 0 ? rows * (cellHeight + gap) - gap : 0;
}

GridPainter::GridPainter() {
    font_ = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    font_.setPixelSize(11);
    small_ = font_;
    small_.setPixelSize(9);
    small_.setBold(true);
}

void GridPainter::paintCell(QPainter& g, const QRectF& r, const dlm::PositionTrace* p, int pos, int blockLength,
                            double eventStrength, bool selected) const {
    using dlm::PosState;
    const PosState state = p ? p->state : PosState::Masked;
    const float conf = p ? p->confidence : NAN;
    g.setPen(Qt::NoPen);
    g.fillRect(r.adjusted(-1, -1, 1, 1), cell_style::background());  // clears the old mark halo
    g.setBrush(cell_style::shadedFill(state, conf));
    g.drawRoundedRect(r, 3, 3);

    if (state == PosState::Masked) {
        // A mask must never look like a space (peers.md A7.8): a dotted bar.
        g.setPen(QPen(cell_style::dimText(), 1, Qt::DotLine));
        const double y = r.center().y();
        g.drawLine(QPointF(r.left() + 8, y), QPointF(r.right() - 8, y));
    } else if (p) {
        const bool special = cell_style::looksSpecial(p->text);
        const auto tok = cell_style::displayToken(p->text, special);
        g.setFont(font_);
        QRectF tr = r.adjusted(4, 0, -8, 0);
        if (special) {
            // A pill: special tokens are visibly not text. It shows the name inside the delimiters
            // ("endoftext" for <|endoftext|>), in the largest size down to 8 px that fits whole.
            const QString name = cell_style::specialName(tok.text);
            QFont f = font_;
            for (int px = 11; px >= 8; --px) {
                f.setPixelSize(px);
                if (QFontMetricsF(f).horizontalAdvance(name) + 8 <= r.width() - 6) break;
            }
            const QFontMetricsF fm(f);
            const double w = std::min(r.width() - 6, fm.horizontalAdvance(name) + 8);
            QRectF pill(r.left() + 2, r.top() + 3, w, r.height() - 6);
            g.setPen(QPen(cell_style::textColor(), 1));
            g.setBrush(Qt::NoBrush);
            g.drawRoundedRect(pill, pill.height() / 2, pill.height() / 2);
            g.setFont(f);
            g.drawText(pill.adjusted(4, 0, -3, 0), Qt::AlignVCenter | Qt::AlignHCenter,
                       fm.elidedText(name, Qt::ElideMiddle, pill.width() - 7));
            g.setFont(font_);
        } else {
            g.setPen(cell_style::textColor());
            QFontMetricsF fm(font_);
            g.drawText(tr, Qt::AlignVCenter | Qt::AlignLeft, fm.elidedText(tok.text, Qt::ElideRight, tr.width()));
        }
    }

    if (blockLength > 0 && pos > 0 && pos % blockLength == 0) {  // a block starts here
        g.setPen(QPen(cell_style::blockBoundary(), 2));
        g.drawLine(QPointF(r.left() - 1, r.top() - 1), QPointF(r.left() - 1, r.bottom() + 1));
    }

    const dlm::PosEvent ev = p ? p->event : dlm::PosEvent::None;
    if (ev != dlm::PosEvent::None && eventStrength > 0) {
        QColor c = cell_style::eventColor(ev);
        c.setAlphaF(float(std::clamp(eventStrength, 0.0, 1.0)));
        g.setPen(QPen(c, 1.0 + 1.5 * eventStrength));
        g.setBrush(Qt::NoBrush);
        g.drawRoundedRect(r.adjusted(1, 1, -1, -1), 3, 3);
        g.setFont(small_);
        g.drawText(r.adjusted(0, 1, -3, 0), Qt::AlignTop | Qt::AlignRight, cell_style::eventGlyph(ev));
    }
    if (selected) {
        g.setPen(QPen(Qt::white, 2));
        g.setBrush(Qt::NoBrush);
        g.drawRoundedRect(r.adjusted(0.5, 0.5, -0.5, -0.5), 3, 3);
    }
}

QImage GridPainter::render(const CanvasModel& canvas, const GridGeometry& geo, qreal dpr) const {
    const double width = geo.columns * (geo.cellWidth + geo.gap);
    QImage img(QSize(int(std::ceil(width * dpr)), int(std::ceil(std::max(1.0, geo.contentHeight()) * dpr))),
               QImage::Format_ARGB32_Premultiplied);
    img.setDevicePixelRatio(dpr);
    img.fill(cell_style::background());
    QPainter g(&img);
    g.setRenderHint(QPainter::Antialiasing);
    g.setRenderHint(QPainter::TextAntialiasing);
    for (int i = 0; i < geo.positions; ++i)
        paintCell(g, geo.cellRect(i), canvas.position(i), i, canvas.blockLength(), 1.0, false);
    return img;
}
