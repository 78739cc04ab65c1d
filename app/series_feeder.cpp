#include "series_feeder.h"

#include <QXYSeries>

SeriesFeeder::SeriesFeeder(QObject* parent) : QObject(parent) {}

QObject* SeriesFeeder::series() const { return series_.data(); }

void SeriesFeeder::setStats(StepStatsModel* s) {
    if (s == stats_) return;
    if (stats_) disconnect(stats_, nullptr, this, nullptr);
    stats_ = s;
    if (stats_) {
        connect(stats_, &StepStatsModel::rowsAppended, this, &SeriesFeeder::append);
        connect(stats_, &QAbstractItemModel::modelReset, this, &SeriesFeeder::refill);
    }
    refill();
    Q_EMIT statsChanged();
}

void SeriesFeeder::setSeries(QObject* s) {
    auto* xy = qobject_cast<QXYSeries*>(s);
    if (xy == series_) return;
    series_ = xy;
    refill();
    Q_EMIT seriesChanged();
}

void SeriesFeeder::setRole(const QString& r) {
    if (r == role_) return;
    role_ = r;
    refill();
    Q_EMIT roleChanged();
}

void SeriesFeeder::setScale(double s) {
    if (qFuzzyCompare(s, scale_)) return;
    scale_ = s;
    refill();
    Q_EMIT scaleChanged();
}

int SeriesFeeder::roleId() const {
    if (!stats_) return -1;
    return stats_->roleNames().key(role_.toUtf8(), -1);
}

void SeriesFeeder::refill() {
    if (!series_) return;
    series_->clear();
    points_ = 0;
    if (stats_ && stats_->count() > 0) append(0, stats_->count() - 1);
    else Q_EMIT pointsChanged();
}

void SeriesFeeder::append(int first, int last) {
    const int role = roleId();
    if (!series_ || role < 0) return;
    QList<QPointF> pts;
    pts.reserve(last - first + 1);
    for (int i = first; i <= last; ++i)
        // x counts steps from 1, as the timeline does: step k is the canvas after k forwards.
        pts.append(QPointF(stats_->value(i, StepStatsModel::StepRole) + 1, stats_->value(i, role) * scale_));
    // QXYSeries::append redraws the whole line once per point it adds, so a trace of n steps
    // opened at once cost O(n^2) (20,000 steps: minutes). Many points go in by one replace; the
    // few of a live frame by append.
    if (pts.size() >= 16) {
        QList<QPointF> all = series_->points();
        all.append(pts);
        series_->replace(all);
    } else {
        series_->append(pts);
    }
    points_ += int(pts.size());
    Q_EMIT pointsChanged();
}
