#include "step_stats_model.h"

#include <algorithm>

StepStatsModel::StepStatsModel(QObject* parent) : QAbstractListModel(parent) {}

int StepStatsModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(rows_.size()); }

QHash<int, QByteArray> StepStatsModel::roleNames() const {
    return {{StepRole, "step"},           {BlockRole, "block"},       {PaperFlopsRole, "paperFlops"},
            {DenseFlopsRole, "denseFlops"}, {CumRatioRole, "cumRatio"}, {CumBaselineRole, "cumBaseline"}, {RowsRole, "rows"},
            {RowsTotalRole, "rowsTotal"}, {TpsRole, "tps"},           {E2eTpsRole, "e2eTps"},
            {WallMsRole, "wallMs"},       {NewlyUnmaskedRole, "newlyUnmasked"},
            {RemasksRole, "remasks"},     {FlipFlopsRole, "flipflops"}};
}

double StepStatsModel::value(int row, int role) const {
    if (row < 0 || row >= int(rows_.size())) return 0;
    const Row& r = rows_[size_t(row)];
    switch (role) {
    case StepRole: return r.step;
    case BlockRole: return r.block;
    case PaperFlopsRole: return r.flops;
    case DenseFlopsRole: return r.dense;
    case CumRatioRole: return r.cum_ratio;
    case CumBaselineRole: return r.cum_baseline;
    case RowsRole: return r.rows;
    case RowsTotalRole: return r.rows_total;
    case TpsRole: return r.tps;
    case E2eTpsRole: return r.e2e_tps;
    case WallMsRole: return r.wall_ms;
    case NewlyUnmaskedRole: return r.newly;
    case RemasksRole: return r.remasks;
    case FlipFlopsRole: return r.flipflops;
    default: return 0;
    }
}

QVariant StepStatsModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
    if (role == Qt::DisplayRole) role = StepRole;
    if (!roleNames().contains(role)) return {};
    return value(index.row(), role);
}

void StepStatsModel::clear() {
    if (rows_.empty()) return;
    beginResetModel();
    rows_.clear();
    max_flops_ = max_rows_ = max_tps_ = max_wall_ = max_events_ = max_cum_ratio_ = 0;
    endResetModel();
    Q_EMIT countChanged();
    Q_EMIT rangesChanged();
}

void StepStatsModel::syncTo(const RunHistory& h) {
    const int first = int(rows_.size());
    const int last = h.stepCount() - 1;
    if (last < first) return;
    beginInsertRows({}, first, last);
    for (int i = first; i <= last; ++i) {
        const auto& s = h.step(i);
        const auto& t = h.totals(i);
        Row r;
        r.step = s.step;
        r.block = s.block;
        r.flops = s.strategy_flops();
        r.dense = s.paper_flops_dense;
        r.cum_ratio = t.flops_ratio();
        // The baseline run's cost from this step's dense forward: a strategy that needs fewer steps
        // (Guided Diffusion, Fast-dLLM, COVER) costs more than dense per step and far less in all.
        const double baseline = dlm::baseline_sampler_flops(s.paper_flops_dense, h.positionCount());
        r.cum_baseline = baseline > 0 ? t.paper_flops / baseline : 0;
        r.rows = s.rows_computed;
        r.rows_total = s.rows_total;
        r.wall_ms = s.wall_ms;
        r.tps = s.wall_ms > 0 ? s.newly_unmasked / (s.wall_ms / 1000.0) : 0;
        r.e2e_tps = t.e2e_tps();
        r.newly = s.newly_unmasked;
        const dlm::RevisionCounts revisions = h.revisions(i);
        r.remasks = int(revisions.remasks);
        r.flipflops = int(revisions.flipflops);
        max_flops_ = std::max({max_flops_, r.flops, r.dense});
        max_rows_ = std::max(max_rows_, double(std::max(r.rows, r.rows_total)));
        max_tps_ = std::max({max_tps_, r.tps, r.e2e_tps});
        max_wall_ = std::max(max_wall_, r.wall_ms);
        max_events_ = std::max(max_events_, double(std::max(r.remasks, r.flipflops)));
        max_cum_ratio_ = std::max({max_cum_ratio_, r.cum_ratio, r.cum_baseline});
        rows_.push_back(r);
    }
    endInsertRows();
    Q_EMIT countChanged();
    Q_EMIT rangesChanged();
    Q_EMIT rowsAppended(first, last);
}
