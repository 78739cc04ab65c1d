#pragma once
// Feeds a Qt Charts XY series from a StepStatsModel column: appends only the rows a flush added
// (QXYSeries::append of a batch), clears on reset. QML: SeriesFeeder { stats: run.stats;
// series: someLineSeries; role: "paperFlops"; scale: 1e-9 }.
#include <QObject>
#include <QPointer>
#include <QtQml/qqmlregistration.h>

#include "step_stats_model.h"

class QXYSeries;

class SeriesFeeder : public QObject {
    Q_OBJECT
    QML_ELEMENT
    Q_PROPERTY(StepStatsModel* stats READ stats WRITE setStats NOTIFY statsChanged)
    Q_PROPERTY(QObject* series READ series WRITE setSeries NOTIFY seriesChanged)
    Q_PROPERTY(QString role READ role WRITE setRole NOTIFY roleChanged)
    Q_PROPERTY(double scale READ scale WRITE setScale NOTIFY scaleChanged)
    Q_PROPERTY(int points READ points NOTIFY pointsChanged)

public:
    explicit SeriesFeeder(QObject* parent = nullptr);
    StepStatsModel* stats() const { return stats_; }
    void setStats(StepStatsModel* s);
    QObject* series() const;
    void setSeries(QObject* s);
    QString role() const { return role_; }
    void setRole(const QString& r);
    double scale() const { return scale_; }
    void setScale(double s);
    int points() const { return points_; }

Q_SIGNALS:
    void statsChanged();
    void seriesChanged();
    void roleChanged();
    void scaleChanged();
    void pointsChanged();

private:
    void refill();
    void append(int first, int last);
    int roleId() const;
    QPointer<StepStatsModel> stats_;
    QPointer<QXYSeries> series_;
    QString role_;
    double scale_ = 1.0;
    int points_ = 0;
};
