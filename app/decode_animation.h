#pragma once
// A decode as an animated PNG: the masked canvas, then the grid after every step, as the app's
// grid paints it (each step's events marked), under a caption with the run's title and the step,
// over a legend of what it shows; the last frame stays a few seconds. Compare mode's two runs go
// in one picture, A above B, in lock-step as the compare view shows them (a run that ends first
// stays at its last step). For slides and lecture notes. Plain data in, a file out: it runs off
// the GUI thread.
#include <atomic>
#include <functional>
#include <vector>

#include <QString>

#include "grid_painter.h"
#include "trace_ptr.h"

// One run's part of the picture.
struct DecodePanel {
    std::vector<StepTracePtr> steps;
    int positions = 0;
    int blockLength = 0;
    QString title;    // "tiny-mdlm · SureLock" ("A · …" in compare mode)
    QString verdict;  // shown from the run's last step on ("✓ Correct: 18"); may be empty
};

struct DecodeAnimation {
    std::vector<DecodePanel> panels;  // one run, or A and B
    // The replay's speeds (the replay speed is clamped to them, so any of its values can be written).
    static constexpr double kMinStepsPerSecond = 0.5, kMaxStepsPerSecond = 240;
    double stepsPerSecond = 20;
    // The steps shown, counted as the captions count them: 0 is the masked canvas, k the grid
    // after k steps. A lecture shows the part of a long decode it talks about.
    int firstStep = 0;
    int lastStep = -1;  // -1: the longest run's last step
    // Pixels per point: 0 chooses (2, crisp on a projector, while every canvas has at most 384
    // positions and the file stays a few MB; else 1); 1 or 2 as asked.
    qreal scale = 0;

    int steps() const;      // the longest run's
    int shownLast() const;  // lastStep, or the longest run's last step
    int frames() const;     // one per step shown
    // How long frame `frame` shows: a step at the speed; the first at least 0.5 s (seen before it
    // moves), the last 3 s (the answer read before the loop starts again).
    int delayMs(int frame) const;
    // What is wrong with the runs or the choices, for the user; empty when it can be written.
    QString problem() const;
    // The picture's layout: each run's grid as the app lays it out, 960 points wide.
    GridGeometry geometry(size_t panel) const;
    QPointF gridOrigin(size_t panel) const;  // where a panel's grid starts, below its caption (points)
    qreal pixelRatio() const;
    QSize pixelSize() const;  // of every frame
};

// Writes `a` to `path` (replaced only once complete). `progress` gets the frames done out of all;
// `cancel` stops between frames. Returns an empty string, or what went wrong, naming the file.
QString writeDecodeAnimation(const DecodeAnimation& a, const QString& path,
                             const std::function<void(int done, int total)>& progress = {},
                             const std::atomic<bool>* cancel = nullptr);
