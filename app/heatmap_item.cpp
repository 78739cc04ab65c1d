#include "heatmap_item.h"

#include <cmath>

#include <QFontDatabase>
#include <QPainter>

#include "cell_style.h"

HeatmapItem::HeatmapItem(QQuickItem* parent) : QQuickPaintedItem(parent) {
    setAcceptHoverEvents(true);
    setOpaquePainting(true);
    setFillColor(cell_style::background());
    setAntialiasing(false);
}

void HeatmapItem::setRun(RunView* r) {
    if (r == run_) return;
    if (run_) disconnect(run_, nullptr, this, nullptr);
    run_ = r;
    if (run_) {
        connect(run_, &RunView::runReset, this, &HeatmapItem::rebuild);
        connect(run_, &RunView::stepCountChanged, this, &HeatmapItem::onStepsFlushed);
        connect(run_, &RunView::plannedStepsChanged, this, &HeatmapItem::onPlannedSteps);
        connect(run_, &RunView::viewStepChanged, this, &HeatmapItem::onViewStep);
    }
    rebuild();
    Q_EMIT runChanged();
}

void HeatmapItem::setMode(const QString& m) {
    if (m == mode_) return;
    mode_ = m;
    rebuild();
    Q_EMIT modeChanged();
}

void HeatmapItem::setEpsilon(double e) {
    if (qFuzzyCompare(e, epsilon_)) return;
    epsilon_ = e;
    update();
    Q_EMIT epsilonChanged();
}

void HeatmapItem::rebuild() {
    const int n = run_ ? run_->positions() : 0;
    kl_.reset(n);
    onStepsFlushed();
    onPlannedSteps();  // resets the reveal image and shows the viewed step
}

void HeatmapItem::onStepsFlushed() {
    if (run_) kl_.appendSteps(run_->history());
    update();
    Q_EMIT repainted();
}

void HeatmapItem::onPlannedSteps() {
    reveal_.reset(run_ ? run_->positions() : 0, run_ ? run_->plannedSteps() : 1);
    onViewStep();
}

void HeatmapItem::onViewStep() {
    if (run_ && run_->viewStep() >= 0) reveal_.showUpTo(run_->history(), run_->viewStep());
    update();
}

QRectF HeatmapItem::barRect() const { return QRectF(width() - 52, 8, 12, std::max(1.0, height() - 22)); }
QRectF HeatmapItem::plotRect() const { return QRectF(mode_ == "reveal" ? 64 : 34, 8, std::max(1.0, width() - 100), std::max(1.0, height() - 22)); }

void HeatmapItem::paint(QPainter* p) { paintTo(*p, size()); }

QString HeatmapItem::blankReason() const {
    if (mode_ != QLatin1String("kl") || !run_ || kl_.rows() == 0 || kl_.measured() > 0) return {};
    if (const auto& header = run_->history().header()) {
        const auto track = header->settings.find("track_kl");
        if (track != header->settings.end() && track->second == "off")
            return tr("No KL: this run did not track it (the setting track KL is off)");
    }
    return tr("KL is measured from step 2 on: step 1 has no previous posterior to compare");
}

void HeatmapItem::paintTo(QPainter& g, const QSizeF&) {
    g.fillRect(boundingRect(), cell_style::background());
    QFont f = QFontDatabase::systemFont(QFontDatabase::GeneralFont);
    f.setPixelSize(10);
    g.setFont(f);
    const QRectF plot = plotRect(), bar = barRect();
    g.setPen(cell_style::dimText());
    g.setBrush(QColor(0x1e, 0x21, 0x28));
    g.drawRect(plot);
    if (!run_ || run_->positions() == 0) {
        g.drawText(plot, Qt::AlignCenter, tr("no run yet"));
        return;
    }
    const int planned = std::max(1, run_->plannedSteps());
    g.setRenderHint(QPainter::SmoothPixmapTransform, false);
    if (mode_ == "reveal") {
        const QRectF top(plot.left(), plot.top(), plot.width(), plot.height() / 2 - 2);
        const QRectF bottom(plot.left(), plot.center().y() + 2, plot.width(), plot.height() / 2 - 2);
        g.drawImage(top, reveal_.image(), QRectF(0, 0, reveal_.image().width(), 1));
        g.drawImage(bottom, reveal_.image(), QRectF(0, 1, reveal_.image().width(), 1));
        g.setPen(cell_style::dimText());
        g.drawText(QRectF(0, top.top(), plot.left() - 4, top.height()), Qt::AlignRight | Qt::AlignVCenter, tr("unmask"));
        g.drawText(QRectF(0, bottom.top(), plot.left() - 4, bottom.height()), Qt::AlignRight | Qt::AlignVCenter, tr("lock"));
    } else {
        // The image grows by doubling; draw only the part that holds steps, on the planned scale.
        const int rows = kl_.rows();
        if (rows > 0) {
            const QRectF target(plot.left(), plot.top(), plot.width(), plot.height() * rows / std::max(planned, rows));
            g.drawImage(target, kl_.image(), QRectF(0, 0, kl_.image().width(), rows));
        }
        const QString blank = blankReason();
        if (!blank.isEmpty()) g.drawText(plot, Qt::AlignCenter | Qt::TextWordWrap, blank);
        const int v = run_->viewStep();
        if (v >= 0) {  // the scrubbed step
            const double y = plot.top() + plot.height() * (v + 0.5) / std::max(planned, rows);
            g.setPen(QPen(QColor(255, 255, 255, 160), 1, Qt::DashLine));
            g.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y));
        }
        g.setPen(cell_style::dimText());
        g.save();
        g.translate(10, plot.center().y());
        g.rotate(-90);
        g.drawText(QRectF(-60, -8, 120, 16), Qt::AlignCenter, tr("step ↓"));
        g.restore();
        // The step scale's ends (steps from 1, as the timeline counts them).
        const QRectF margin(14, plot.top(), plot.left() - 16, plot.height());
        g.drawText(margin, Qt::AlignRight | Qt::AlignTop, QStringLiteral("1"));
        if (std::max(planned, rows) > 1)
            g.drawText(margin, Qt::AlignRight | Qt::AlignBottom, QString::number(std::max(planned, rows)));
    }
    // The position scale's ends (positions from 0, as the inspector names them).
    const QRectF below(plot.left(), plot.bottom(), plot.width(), 14);
    g.drawText(below, Qt::AlignCenter, tr("position →"));
    g.drawText(below, Qt::AlignLeft | Qt::AlignVCenter, QStringLiteral("0"));
    g.drawText(below, Qt::AlignRight | Qt::AlignVCenter, QString::number(run_->positions() - 1));

    // Colour bar.
    const double lowest = mode_ == "reveal" ? heatmap::kFirstStepUnit : 0.0;
    if (bar_.height() != int(bar.height()) || bar_lowest_ != lowest)
        bar_ = heatmap::colourBar(1, int(bar.height()), lowest), bar_lowest_ = lowest;
    g.drawImage(bar, bar_);
    g.setPen(cell_style::dimText());
    g.setBrush(Qt::NoBrush);  // an outline only: the plot's fill brush would cover the gradient
    g.drawRect(bar);
    auto yOf = [&](double unit) { return bar.bottom() - unit * bar.height(); };
    if (mode_ == "reveal") {
        // Steps from 1, as the hover text and the timeline name them.
        g.drawText(QPointF(bar.right() + 3, bar.top() + 8), QString::number(planned));
        g.drawText(QPointF(bar.right() + 3, bar.bottom()), QStringLiteral("1"));
        g.drawText(QPointF(bar.right() + 3, bar.center().y()), tr("step"));
    } else {
        for (int e = int(heatmap::kLogMin); e <= int(heatmap::kLogMax); e += 3) {
            const double y = yOf((e - heatmap::kLogMin) / (heatmap::kLogMax - heatmap::kLogMin));
            g.drawLine(QPointF(bar.right(), y), QPointF(bar.right() + 3, y));
            g.drawText(QPointF(bar.right() + 5, y + 4), QStringLiteral("1e%1").arg(e));
        }
        if (epsilon_ > 0) {  // values below ε count as converged: a bracket over that band
            const double y = yOf(heatmap::klToUnit(epsilon_));
            g.fillRect(QRectF(bar.left() - 4, y, 3, bar.bottom() - y), QColor(255, 255, 255, 200));
            g.setPen(QPen(Qt::white, 1.5));
            g.drawLine(QPointF(bar.left() - 6, y), QPointF(bar.right() + 2, y));
            g.drawText(QPointF(bar.left() - 16, y + 4), QStringLiteral("ε"));
        }
    }
}

// Steps are named from 1, as on the timeline (step k: the canvas after k forwards).
void HeatmapItem::hoverMoveEvent(QHoverEvent* e) {
    const QRectF plot = plotRect();
    if (!run_ || !plot.contains(e->position()) || run_->positions() == 0) return setHoverText({});
    const int n = run_->positions();
    const int pos = std::clamp(int((e->position().x() - plot.left()) / plot.width() * n), 0, n - 1);
    if (mode_ == "reveal") {
        const int r = reveal_.revealStep(pos), l = reveal_.lockStep(pos);
        QString t = tr("position %1: ").arg(pos) + (r >= 0 ? tr("unmasked at step %1").arg(r + 1) : tr("still masked"));
        if (l >= 0) t += tr(", locked at step %1").arg(l + 1);
        return setHoverText(t);
    }
    const int planned = std::max(run_->plannedSteps(), kl_.rows());
    const int step = int((e->position().y() - plot.top()) / plot.height() * planned);
    const double v = kl_.value(pos, step);
    if (step >= kl_.rows()) return setHoverText(tr("position %1, step %2: not decoded yet").arg(pos).arg(step + 1));
    setHoverText(std::isnan(v) ? tr("position %1, step %2: no KL (row not computed)").arg(pos).arg(step + 1)
                               : tr("position %1, step %2: KL = %3").arg(pos).arg(step + 1).arg(v, 0, 'g', 3));
}

void HeatmapItem::hoverLeaveEvent(QHoverEvent*) { setHoverText({}); }

void HeatmapItem::setHoverText(const QString& t) {
    if (t == hover_text_) return;
    hover_text_ = t;
    Q_EMIT hoverTextChanged();
}

bool HeatmapItem::saveImage(const QString& path) {
    QImage img(QSize(int(width() * 2), int(height() * 2)), QImage::Format_ARGB32_Premultiplied);
    img.setDevicePixelRatio(2);
    QPainter g(&img);
    paintTo(g, size());
    g.end();
    return img.save(path);
}
