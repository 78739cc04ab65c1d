import QtCharts

// A per-step line. A run of one step (fast-dllm may commit a whole answer at once) has no line to
// draw: its point shows as a marker instead, or the chart would look empty.
LineSeries {
    pointsVisible: count === 1
}
