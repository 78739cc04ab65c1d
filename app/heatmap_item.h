#pragma once
// Heatmaps of a run (see heatmap_painter.h): the per-step KL map with a log colour bar whose
// ε band marks the lock threshold, or the reveal-order map. Hovering a cell reports its value.
#include <QPointer>
#include <QQuickPaintedItem>
#include <QtQml/qqmlregistration.h>

#include "heatmap_painter.h"
#include "run_view.h"

class HeatmapItem : public QQuickPaintedItem {
    Q_OBJECT
    QML_ELEMENT
    Q_PROPERTY(RunView* run READ run WRITE setRun NOTIFY runChanged)
    Q_PROPERTY(QString mode READ mode WRITE setMode NOTIFY modeChanged)  // "kl" or "reveal"
    Q_PROPERTY(double epsilon READ epsilon WRITE setEpsilon NOTIFY epsilonChanged)  // <= 0: no band
    Q_PROPERTY(QString hoverText READ hoverText NOTIFY hoverTextChanged)
    Q_PROPERTY(int rowsDrawn READ rowsDrawn NOTIFY repainted)
    // Why a KL map with steps is blank (KL not tracked, or only the first step so far); else empty.
    Q_PROPERTY(QString blankReason READ blankReason NOTIFY repainted)

public:
    explicit HeatmapItem(QQuickItem* parent = nullptr);
    void paint(QPainter* painter) override;

    RunView* run() const { return run_; }
    void setRun(RunView* r);
    QString mode() const { return mode_; }
    void setMode(const QString& m);
    double epsilon() const { return epsilon_; }
    void setEpsilon(double e);
    QString hoverText() const { return hover_text_; }
    int rowsDrawn() const { return kl_.rows(); }
    QString blankReason() const;

    Q_INVOKABLE bool saveImage(const QString& path);

Q_SIGNALS:
    void runChanged();
    void modeChanged();
    void epsilonChanged();
    void hoverTextChanged();
    void repainted();

protected:
    void hoverMoveEvent(QHoverEvent* e) override;
    void hoverLeaveEvent(QHoverEvent* e) override;

private:
    void rebuild();
    void onStepsFlushed();
    void onPlannedSteps();  // a run past its steps setting: the reveal colours rescale
    void onViewStep();
    QRectF plotRect() const;
    QRectF barRect() const;
    void setHoverText(const QString& t);
    void paintTo(QPainter& g, const QSizeF& size);

    QPointer<RunView> run_;
    QString mode_ = QStringLiteral("kl");
    double epsilon_ = 0;
    QString hover_text_;
    heatmap::KlImage kl_;
    heatmap::RevealImage reveal_;
    QImage bar_;
    double bar_lowest_ = 0.0;  // the ramp bar_ starts from (the mode's)
};
