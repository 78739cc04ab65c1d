#include "heatmap_painter.h"

#include <algorithm>
#include <cmath>

namespace heatmap {

QColor colormap(double t) {
    // Control points of matplotlib's magma, linearly interpolated: perceptually ordered and
    // readable on the dark theme.
    static const double stops[][3] = {{0.001, 0.000, 0.014}, {0.114, 0.065, 0.276}, {0.316, 0.071, 0.485},
                                      {0.513, 0.148, 0.508}, {0.716, 0.215, 0.475}, {0.904, 0.315, 0.400},
                                      {0.989, 0.521, 0.378}, {0.996, 0.748, 0.519}, {0.987, 0.991, 0.750}};
    constexpr int n = 9;
    t = std::clamp(t, 0.0, 1.0) * (n - 1);
    const int i = std::min(n - 2, int(t));
    const double f = t - i;
    auto mix = [&](int c) { return stops[i][c] + (stops[i + 1][c] - stops[i][c]) * f; };
    return QColor::fromRgbF(float(mix(0)), float(mix(1)), float(mix(2)));
}

double klToUnit(double kl) {
    if (std::isnan(kl)) return NAN;
    const double l = std::log10(std::max(kl, 1e-12));
    return std::clamp((l - kLogMin) / (kLogMax - kLogMin), 0.0, 1.0);
}

QColor klColor(double kl) {
    if (std::isnan(kl)) return QColor(0, 0, 0, 0);
    return colormap(klToUnit(kl));
}

QColor stepColor(int step, int planned) {
    if (step < 0) return QColor(0, 0, 0, 0);
    return colormap(kFirstStepUnit + (1.0 - kFirstStepUnit) * double(step) / std::max(1, planned - 1));
}

QImage colourBar(int width, int height, double lowest) {
    QImage img(std::max(1, width), std::max(1, height), QImage::Format_ARGB32_Premultiplied);
    for (int y = 0; y < img.height(); ++y) {
        const double up = 1.0 - double(y) / std::max(1, img.height() - 1);
        const QRgb c = colormap(lowest + (1.0 - lowest) * up).rgba();
        auto* line = reinterpret_cast<QRgb*>(img.scanLine(y));
        std::fill(line, line + img.width(), c);
    }
    return img;
}

void KlImage::reset(int positions) {
    positions_ = std::max(0, positions);
    rows_ = 0;
    measured_ = 0;
    values_.clear();
    img_ = QImage();
}

void KlImage::appendSteps(const RunHistory& h) {
    const int target = h.stepCount();
    if (target <= rows_ || positions_ == 0) return;
    if (img_.isNull() || img_.height() < target) {  // grow by doubling: amortised O(1) per row
        QImage bigger(positions_, std::max(64, std::max(target, img_.height() * 2)), QImage::Format_ARGB32_Premultiplied);
        bigger.fill(Qt::transparent);
        for (int y = 0; y < rows_; ++y)
            std::copy_n(reinterpret_cast<const QRgb*>(img_.constScanLine(y)), positions_, reinterpret_cast<QRgb*>(bigger.scanLine(y)));
        img_ = std::move(bigger);
    }
    values_.resize(size_t(target) * size_t(positions_), NAN);
    for (int y = rows_; y < target; ++y) {
        auto* line = reinterpret_cast<QRgb*>(img_.scanLine(y));
        std::fill(line, line + positions_, qRgba(0, 0, 0, 0));
        for (const auto& p : h.step(y).positions) {
            if (p.pos < 0 || p.pos >= positions_) continue;
            values_[size_t(y) * size_t(positions_) + size_t(p.pos)] = p.kl;
            line[p.pos] = klColor(p.kl).rgba();
            measured_ += !std::isnan(p.kl);
        }
    }
    rows_ = target;
}

double KlImage::value(int pos, int step) const {
    if (pos < 0 || pos >= positions_ || step < 0 || step >= rows_) return NAN;
    return values_[size_t(step) * size_t(positions_) + size_t(pos)];
}

void RevealImage::reset(int positions, int planned) {
    reveal_.assign(size_t(std::max(0, positions)), -1);
    lock_.assign(reveal_.size(), -1);
    planned_ = std::max(1, planned);
    img_ = QImage(std::max(1, positions), 2, QImage::Format_ARGB32_Premultiplied);
    img_.fill(Qt::transparent);
}

void RevealImage::showUpTo(const RunHistory& h, int upto) {
    upto = std::min(upto, h.stepCount() - 1);
    const dlm::PositionTimeline& timeline = h.timeline();
    auto* top = reinterpret_cast<QRgb*>(img_.scanLine(0));
    auto* bottom = reinterpret_cast<QRgb*>(img_.scanLine(1));
    for (size_t i = 0; i < reveal_.size(); ++i) {
        reveal_[i] = timeline.reveal_step(int(i), upto);
        lock_[i] = timeline.lock_step(int(i), upto);
        top[i] = stepColor(reveal_[i], planned_).rgba();
        bottom[i] = stepColor(lock_[i], planned_).rgba();
    }
}

}  // namespace heatmap
