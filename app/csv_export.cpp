#include "csv_export.h"

#include <QFile>
#include <QTextStream>

#include "step_stats_model.h"

QString stepCsvText(const StepStatsModel& stats) {
    const int first = StepStatsModel::StepRole, last = StepStatsModel::FlipFlopsRole;
    QString out;
    QTextStream s(&out);
    const auto names = stats.roleNames();
    for (int r = first; r <= last; ++r) s << names.value(r) << (r == last ? "\n" : ",");
    for (int i = 0; i < stats.count(); ++i)
        for (int r = first; r <= last; ++r) s << QString::number(stats.value(i, r), 'g', 10) << (r == last ? "\n" : ",");
    return out;
}

QString writeStepCsv(const StepStatsModel& stats, const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate | QIODevice::Text))
        return QStringLiteral("cannot write %1: %2").arg(path, f.errorString());
    const QByteArray bytes = stepCsvText(stats).toUtf8();
    if (f.write(bytes) != bytes.size()) return QStringLiteral("writing %1 failed: %2").arg(path, f.errorString());
    return {};
}
