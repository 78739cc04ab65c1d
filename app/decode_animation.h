#pragma once
// A run's decode as an animated PNG: the masked canvas, then the grid after every step, as the
// app's grid paints it (each step's events marked), under a caption with the run's title and the
// step; the last frame adds the verdict and stays a few seconds. For slides and lecture notes.
// Plain data in, a file out: it runs off the GUI thread.
#include <atomic>
#include <functional>
#include <vector>

#include <QString>

#include "grid_painter.h"
#include "trace_ptr.h"

struct DecodeAnimation {
    std::vector<StepTracePtr> steps;
    int positions = 0;
    int blockLength = 0;
    QString title;         // "tiny-mdlm · SureLock"
    QString verdict;       // shown on the last frame ("✓ Correct: 18"); may be empty
    double stepsPerSecond = 20;

    // The picture's layout: the app's grid 960 points wide; twice the pixels for a canvas
    // small enough to stay a few MB (crisp on a projector), once beyond.
    GridGeometry geometry() const;
    qreal pixelRatio() const;
    static QPointF gridOrigin();  // where the grid starts, below the caption (points)
};

// Writes `a` to `path` (replaced only once complete). `progress` gets the frames done out of all;
// `cancel` stops between frames. Returns an empty string, or what went wrong, naming the file.
QString writeDecodeAnimation(const DecodeAnimation& a, const QString& path,
                             const std::function<void(int done, int total)>& progress = {},
                             const std::atomic<bool>* cancel = nullptr);
