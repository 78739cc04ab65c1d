#include "denoise_grid_item.h"

#include <algorithm>
#include <cmath>

#include <QPainter>
#include <QQuickWindow>

#include "cell_style.h"

namespace {
constexpr qint64 kFadeMs = 700;
constexpr double kRestingMark = 0.45;  // a past step's event stays readable when scrubbing
}  // namespace

DenoiseGridItem::DenoiseGridItem(QQuickItem* parent) : QQuickPaintedItem(parent) {
    setAcceptHoverEvents(true);
    setAcceptedMouseButtons(Qt::LeftButton);
    setOpaquePainting(true);
    setFillColor(cell_style::background());
    clock_.start();
    anim_timer_.setInterval(16);
    connect(&anim_timer_, &QTimer::timeout, this, &DenoiseGridItem::tickAnimation);
}

void DenoiseGridItem::setCanvas(CanvasModel* c) {
    if (c == canvas_) return;
    if (canvas_) disconnect(canvas_, nullptr, this, nullptr);
    canvas_ = c;
    if (canvas_) {
        connect(canvas_, &QAbstractItemModel::dataChanged, this,
                [this](const QModelIndex& a, const QModelIndex& b) { repaintCells(a.row(), b.row()); });
        connect(canvas_, &QAbstractItemModel::modelReset, this, &DenoiseGridItem::relayout);
        connect(canvas_, &CanvasModel::layoutReset, this, &DenoiseGridItem::relayout);
    }
    relayout();
    Q_EMIT canvasChanged();
}

void DenoiseGridItem::setSelectedPosition(int p) {
    if (p == selected_) return;
    const int old = selected_;
    selected_ = p;
    std::vector<int> cells;
    if (old >= 0 && old < geo_.positions) cells.push_back(old);
    if (p >= 0 && p < geo_.positions) cells.push_back(p);
    paintCells(cells);
    Q_EMIT selectedPositionChanged();
}

void DenoiseGridItem::setAnimateEvents(bool a) {
    if (a == animate_) return;
    animate_ = a;
    Q_EMIT animateEventsChanged();
}

void DenoiseGridItem::geometryChange(const QRectF& n, const QRectF& o) {
    QQuickPaintedItem::geometryChange(n, o);
    if (!qFuzzyCompare(n.width(), o.width())) relayout();
}

void DenoiseGridItem::relayout() {
    const int positions = canvas_ ? canvas_->rowCount() : 0;
    const double oldHeight = geo_.contentHeight();
    geo_ = GridGeometry::forCanvas(positions, std::max(1.0, width()));
    event_born_.assign(size_t(positions), -1);
    fading_.clear();
    if (!qFuzzyCompare(oldHeight + 1, geo_.contentHeight() + 1)) Q_EMIT contentHeightChanged();
    repaintAll();
}

double DenoiseGridItem::eventStrength(int pos) const {
    if (!animate_ || pos >= int(event_born_.size()) || event_born_[size_t(pos)] < 0) return kRestingMark;
    const double t = double(clock_.elapsed() - event_born_[size_t(pos)]) / kFadeMs;
    return t >= 1 ? kRestingMark : 1.0 - (1.0 - kRestingMark) * t;
}

void DenoiseGridItem::repaintAll() {
    const qreal dpr = window() ? window()->effectiveDevicePixelRatio() : 1.0;
    const QSize size(std::max(1, int(std::ceil(width() * dpr))), std::max(1, int(std::ceil(geo_.contentHeight() * dpr))));
    backing_ = QImage(size, QImage::Format_ARGB32_Premultiplied);
    backing_.setDevicePixelRatio(dpr);
    backing_.fill(cell_style::background());
    std::vector<int> all(size_t(geo_.positions));
    for (int i = 0; i < geo_.positions; ++i) all[size_t(i)] = i;
    paintCells(all);
    // The whole item, not just the cells: the strip right of the last column is background too,
    // and a resized item's texture holds nothing there until it is drawn.
    update();
}

void DenoiseGridItem::repaintCells(int first, int last) {
    if (!canvas_) return;
    std::vector<int> cells;
    const qint64 now = clock_.elapsed();
    for (int i = std::max(0, first); i <= last && i < geo_.positions; ++i) {
        cells.push_back(i);
        if (canvas_->event(i) != dlm::PosEvent::None && animate_) {
            if (event_born_[size_t(i)] < 0 || now - event_born_[size_t(i)] >= kFadeMs) fading_.push_back(i);
            event_born_[size_t(i)] = now;
        } else {
            event_born_[size_t(i)] = -1;
        }
    }
    paintCells(cells);
    if (!fading_.empty() && !anim_timer_.isActive()) anim_timer_.start();
}

void DenoiseGridItem::tickAnimation() {
    const qint64 now = clock_.elapsed();
    std::vector<int> still;
    for (int p : fading_)
        if (p < int(event_born_.size()) && event_born_[size_t(p)] >= 0 && now - event_born_[size_t(p)] < kFadeMs + 16)
            still.push_back(p);
    std::sort(still.begin(), still.end());
    still.erase(std::unique(still.begin(), still.end()), still.end());
    paintCells(still);
    // Keep only marks still fading after this frame.
    fading_.clear();
    for (int p : still)
        if (now - event_born_[size_t(p)] < kFadeMs) fading_.push_back(p);
    if (fading_.empty()) anim_timer_.stop();
}

void DenoiseGridItem::paintCells(const std::vector<int>& cells) {
    if (cells.empty() || backing_.isNull()) return;
    cells_repainted_ += qint64(cells.size());
    QPainter g(&backing_);
    g.setRenderHint(QPainter::Antialiasing);
    g.setRenderHint(QPainter::TextAntialiasing);
    const int block = canvas_ ? canvas_->blockLength() : 0;
    QRectF dirty;
    for (int pos : cells) {
        const QRectF r = geo_.cellRect(pos);
        painter_.paintCell(g, r, canvas_ ? canvas_->position(pos) : nullptr, pos, block, eventStrength(pos), pos == selected_);
        dirty = dirty.united(r.adjusted(-2, -2, 2, 2));
    }
    g.end();
    update(dirty.toAlignedRect());
    Q_EMIT repainted();
}

void DenoiseGridItem::paint(QPainter* painter) {
    if (!backing_.isNull()) painter->drawImage(QPointF(0, 0), backing_);
}

void DenoiseGridItem::hoverMoveEvent(QHoverEvent* e) {
    const int p = geo_.cellAt(e->position());
    if (p != hovered_) {
        hovered_ = p;
        Q_EMIT hoveredPositionChanged();
    }
}

void DenoiseGridItem::hoverLeaveEvent(QHoverEvent*) {
    if (hovered_ != -1) {
        hovered_ = -1;
        Q_EMIT hoveredPositionChanged();
    }
}

void DenoiseGridItem::mousePressEvent(QMouseEvent* e) {
    // The keyboard leaves the prompt's text for the grid, which takes no keys itself: Space, ←
    // and → then drive the run (the window's shortcuts) instead of typing into the prompt.
    forceActiveFocus(Qt::MouseFocusReason);
    const int p = geo_.cellAt(e->position());
    if (p >= 0) {
        setSelectedPosition(p);
        Q_EMIT clicked(p);
    }
    e->accept();
}

bool DenoiseGridItem::saveImage(const QString& path) const {
    if (!canvas_) return false;
    return painter_.render(*canvas_, geo_, 2.0).save(path);
}
