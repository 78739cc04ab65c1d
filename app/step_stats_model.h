#pragma once
// Per-step numbers for the charts and the CSV export: one row per recorded step. Rows are
// inserted in batches (one beginInsertRows per coalesced frame); the maxima drive axis ranges.
#include <QAbstractListModel>
#include <QtQml/qqmlregistration.h>

#include "run_history.h"

class StepStatsModel : public QAbstractListModel {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("StepStatsModel belongs to a RunView")
    Q_PROPERTY(int count READ count NOTIFY countChanged)
    Q_PROPERTY(double maxFlops READ maxFlops NOTIFY rangesChanged)
    Q_PROPERTY(double maxRows READ maxRows NOTIFY rangesChanged)
    Q_PROPERTY(double maxTps READ maxTps NOTIFY rangesChanged)
    Q_PROPERTY(double maxWallMs READ maxWallMs NOTIFY rangesChanged)
    Q_PROPERTY(double maxEvents READ maxEvents NOTIFY rangesChanged)
    Q_PROPERTY(double maxCumRatio READ maxCumRatio NOTIFY rangesChanged)  // of both cumulative ratios

public:
    enum Role {
        StepRole = Qt::UserRole + 1,
        BlockRole,
        PaperFlopsRole,     // this step, strategy
        DenseFlopsRole,     // this step, dense baseline
        CumRatioRole,       // cumulative strategy / dense over the steps taken
        CumBaselineRole,    // cumulative strategy / the baseline sampler's whole run (dlm::baseline_sampler_flops)
        RowsRole,           // M_t
        RowsTotalRole,      // N
        TpsRole,            // newly unmasked / wall time of the step
        E2eTpsRole,         // all unmasked so far / total wall time so far
        WallMsRole,
        NewlyUnmaskedRole,
        RemasksRole,
        FlipFlopsRole,
    };
    Q_ENUM(Role)

    explicit StepStatsModel(QObject* parent = nullptr);
    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QHash<int, QByteArray> roleNames() const override;

    void clear();
    // Inserts rows for the steps of `history` not yet in the model (one insert notification).
    void syncTo(const RunHistory& history);
    Q_INVOKABLE double value(int row, int role) const;  // the series feeder, the CSV, tests
    Q_INVOKABLE QString roleName(int role) const { return QString::fromUtf8(roleNames().value(role)); }

    int count() const { return int(rows_.size()); }
    double maxFlops() const { return max_flops_; }
    double maxRows() const { return max_rows_; }
    double maxTps() const { return max_tps_; }
    double maxWallMs() const { return max_wall_; }
    double maxEvents() const { return max_events_; }
    double maxCumRatio() const { return max_cum_ratio_; }

Q_SIGNALS:
    void countChanged();
    void rangesChanged();
    void rowsAppended(int first, int last);

private:
    struct Row {
        int step = 0, block = 0;
        double flops = 0, dense = 0, cum_ratio = 0, cum_baseline = 0;
        int rows = 0, rows_total = 0;
        double tps = 0, e2e_tps = 0, wall_ms = 0;
        int newly = 0, remasks = 0, flipflops = 0;
    };
    std::vector<Row> rows_;
    double max_flops_ = 0, max_rows_ = 0, max_tps_ = 0, max_wall_ = 0, max_events_ = 0, max_cum_ratio_ = 0;
};
