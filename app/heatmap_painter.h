#pragma once
// Heatmap images, one pixel per cell, grown incrementally (a new step adds one row: O(positions)).
//  * KL map: x = position, y = step, colour = log10 KL(p_t || p_{t-1}) on a perceptual scale;
//    cells without a value (masked rows not computed, locked rows) stay dark.
//  * Reveal map: x = position, two bands: the step each position was unmasked, and (if it was)
//    locked, coloured by step / planned steps.
#include <QColor>
#include <QImage>

#include "run_history.h"

namespace heatmap {

inline constexpr double kLogMin = -8.0, kLogMax = 1.0;  // KL colour range, log10 nats
QColor colormap(double t);  // t in [0,1] -> a dark-to-bright perceptual ramp (magma-like)
QColor klColor(double kl);  // NaN -> transparent
double klToUnit(double kl);  // log scale position in [0,1]
// The first step starts a little up the ramp, so that a position unmasked at step 1 stands out
// from the dark plot.
inline constexpr double kFirstStepUnit = 0.15;
QColor stepColor(int step, int planned);  // -1 -> transparent
// The ramp from `lowest` (bottom) to 1 (top): from 0 for KL (kLogMin .. kLogMax), from
// kFirstStepUnit for steps (1 .. planned).
QImage colourBar(int width, int height, double lowest = 0.0);

class KlImage {
public:
    void reset(int positions);
    void appendSteps(const RunHistory& h);  // rows for the steps not yet drawn
    const QImage& image() const { return img_; }
    int rows() const { return rows_; }
    double value(int pos, int step) const;  // NaN if absent
    int measured() const { return measured_; }  // cells with a KL value
private:
    QImage img_;
    std::vector<float> values_;  // rows_ x positions_
    int positions_ = 0, rows_ = 0, measured_ = 0;
};

// Reveal and lock steps as of `upto` (inclusive), read from the run's position timeline.
class RevealImage {
public:
    void reset(int positions, int planned);
    void showUpTo(const RunHistory& h, int upto);
    const QImage& image() const { return img_; }
    int revealStep(int pos) const { return pos >= 0 && pos < int(reveal_.size()) ? reveal_[size_t(pos)] : -1; }
    int lockStep(int pos) const { return pos >= 0 && pos < int(lock_.size()) ? lock_[size_t(pos)] : -1; }
private:
    QImage img_;
    std::vector<int> reveal_, lock_;  // as shown
    int planned_ = 1;
};

}  // namespace heatmap
