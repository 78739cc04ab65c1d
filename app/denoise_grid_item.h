#pragma once
// The denoising grid: one cell per generated position, painted by C++ into a backing image.
// Why not one QML delegate per cell: at 1024 positions a GridView creates, binds and lays out a
// thousand items and re-evaluates their bindings on every model change; here a step repaints
// only the rows the CanvasModel reports in dataChanged (plus cells whose event mark is still
// fading), and the scene graph uploads one texture. See docs/app.md for the measurement.
#include <QElapsedTimer>
#include <QImage>
#include <QPointer>
#include <QQuickPaintedItem>
#include <QTimer>
#include <QtQml/qqmlregistration.h>

#include "canvas_model.h"
#include "grid_painter.h"

class DenoiseGridItem : public QQuickPaintedItem {
    Q_OBJECT
    QML_ELEMENT
    Q_PROPERTY(CanvasModel* canvas READ canvas WRITE setCanvas NOTIFY canvasChanged)
    Q_PROPERTY(double contentHeight READ contentHeight NOTIFY contentHeightChanged)
    Q_PROPERTY(int selectedPosition READ selectedPosition WRITE setSelectedPosition NOTIFY selectedPositionChanged)
    Q_PROPERTY(int hoveredPosition READ hoveredPosition NOTIFY hoveredPositionChanged)
    Q_PROPERTY(bool animateEvents READ animateEvents WRITE setAnimateEvents NOTIFY animateEventsChanged)
    Q_PROPERTY(qint64 cellsRepainted READ cellsRepainted NOTIFY repainted)

public:
    explicit DenoiseGridItem(QQuickItem* parent = nullptr);

    void paint(QPainter* painter) override;

    CanvasModel* canvas() const { return canvas_; }
    void setCanvas(CanvasModel* c);
    double contentHeight() const { return geo_.contentHeight(); }
    int selectedPosition() const { return selected_; }
    void setSelectedPosition(int p);
    int hoveredPosition() const { return hovered_; }
    bool animateEvents() const { return animate_; }
    void setAnimateEvents(bool a);
    qint64 cellsRepainted() const { return cells_repainted_; }  // since creation (tests, docs)

    Q_INVOKABLE int cellAt(double x, double y) const { return geo_.cellAt(QPointF(x, y)); }
    Q_INVOKABLE QRectF cellRect(int pos) const { return geo_.cellRect(pos); }
    Q_INVOKABLE bool saveImage(const QString& path) const;
    QImage image() const { return backing_; }

Q_SIGNALS:
    void canvasChanged();
    void contentHeightChanged();
    void selectedPositionChanged();
    void hoveredPositionChanged();
    void animateEventsChanged();
    void clicked(int position);
    void repainted();

protected:
    void geometryChange(const QRectF& newGeometry, const QRectF& oldGeometry) override;
    void hoverMoveEvent(QHoverEvent* e) override;
    void hoverLeaveEvent(QHoverEvent* e) override;
    void mousePressEvent(QMouseEvent* e) override;

private:
    void relayout();
    void repaintAll();
    void repaintCells(int first, int last);
    void paintCells(const std::vector<int>& cells);
    void tickAnimation();
    double eventStrength(int pos) const;

    QPointer<CanvasModel> canvas_;
    GridGeometry geo_;
    GridPainter painter_;
    QImage backing_;
    int selected_ = -1, hovered_ = -1;
    bool animate_ = true;
    qint64 cells_repainted_ = 0;
    // Event marks fade in the first kFadeMs after the step that produced them.
    QElapsedTimer clock_;
    std::vector<qint64> event_born_;  // per position: when its current event was shown
    std::vector<int> fading_;         // positions whose mark is still fading
    QTimer anim_timer_;
};
