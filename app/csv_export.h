#pragma once
// Per-step statistics as CSV (one row per step, a header line naming every column).
#include <QString>

class StepStatsModel;

// Returns an empty string on success, else a message naming the file.
QString writeStepCsv(const StepStatsModel& stats, const QString& path);
QString stepCsvText(const StepStatsModel& stats);
