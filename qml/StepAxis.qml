import QtQuick
import QtCharts

// The x axis of every per-step chart: steps counted from 1, as on the timeline, up to `steps`
// (at least 2, so a one-step run still has an axis), whole steps only (a two-step run gets ticks
// 1 and 2, not 1 1 1 1 2).
ValueAxis {
    property int steps: 2
    min: 1
    max: Math.max(2, steps)
    tickCount: Math.max(2, Math.min(5, max - min + 1))
    labelFormat: "%d"
    labelsColor: Theme.dim
    labelsFont.pixelSize: 9
    gridLineColor: "#262a33"
}
