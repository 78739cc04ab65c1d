#pragma once
// Paints denoising-grid cells with QPainter: shared by the live grid item (which repaints only
// the cells that changed into its backing image) and the PNG export.
#include <QFont>
#include <QImage>
#include <QPainter>
#include <QRectF>

#include "trace/step_trace.h"

class CanvasModel;

struct GridGeometry {
    int positions = 0;
    int columns = 1;
    double cellWidth = 56, cellHeight = 22, gap = 2, blockGap = 0;

    static GridGeometry fit(int positions, double width, double cellWidth, double cellHeight);
    // The grid of a canvas as the app and its exports lay it out: 60 × 22 cells, smaller (44 × 18)
    // past 384 positions so a long canvas stays in view.
    static GridGeometry forCanvas(int positions, double width);
    QRectF cellRect(int pos) const;
    int cellAt(QPointF p) const;  // -1 outside every cell
    double contentHeight() const;
};

class GridPainter {
public:
    GridPainter();
    // eventStrength: 1 = the event just happened, fading toward a resting visibility.
    void paintCell(QPainter& painter, const QRectF& rect, const dlm::PositionTrace* p, int pos,
                   int blockLength, double eventStrength, bool selected) const;
    // The whole grid at the model's shown step (export; tests read pixel colours from it).
    QImage render(const CanvasModel& canvas, const GridGeometry& geometry, qreal dpr = 1.0) const;

private:
    QFont font_, small_;
};
