import QtQuick
import QtCharts
import Dlmscope

// One live chart: up to three series fed from StepStatsModel columns by SeriesFeeder (only new
// steps are appended), autoscaled axes, and a marker at the shown step.
ChartView {
    id: chart
    property string heading
    property StepStatsModel stats
    property StepStatsModel statsB            // compare mode: overlay run B
    property int planned: 1
    property int viewStep: -1
    property var roles: []                    // [{role, label, color, scale}]
    property real yMax: 1
    property bool integerAxis: false          // counts: ticks on whole numbers only
    // The y axis: 0 .. a 1-2-5 step times (tickCount - 1), covering yMax with a 10 % margin, and
    // labels with as many decimals as the step needs (0.05 -> "%.2f"), so no two ticks read alike.
    readonly property var yAxis: niceAxis(yMax, axisY.tickCount)
    function niceAxis(top, ticks) {
        const want = Math.max(top > 0 ? top * 1.1 : 1, integerAxis ? ticks - 1 : 0) / (ticks - 1)
        const mag = Math.pow(10, Math.floor(Math.log10(want)))
        let step = [1, 2, 5, 10].map(m => m * mag).find(s => s >= want * (1 - 1e-9))
        if (integerAxis) step = Math.max(1, Math.round(step))
        const decimals = integerAxis ? 0 : Math.max(0, -Math.floor(Math.log10(step) + 1e-9))
        return {max: step * (ticks - 1), format: "%." + decimals + "f"}
    }
    property alias seriesA: s0
    property alias seriesA2: s1               // run A's second role
    property alias seriesB: sB

    title: heading
    titleColor: Theme.text
    titleFont.pixelSize: Theme.small
    backgroundColor: Theme.panel
    plotAreaColor: "#14171c"
    backgroundRoundness: Theme.radius
    legend.labelColor: Theme.dim
    legend.font.pixelSize: 10
    legend.alignment: Qt.AlignBottom
    antialiasing: true
    margins { top: 2; bottom: 2; left: 2; right: 2 }
    animationOptions: ChartView.NoAnimation

    StepAxis { id: axisX; steps: chart.planned }
    ValueAxis {
        id: axisY
        min: 0
        max: chart.yAxis.max
        labelFormat: chart.yAxis.format
        labelsColor: Theme.dim
        labelsFont.pixelSize: 9
        gridLineColor: "#262a33"
        tickCount: 4
    }
    StepSeries { id: s0; objectName: "series0"; axisX: axisX; axisY: axisY; name: chart.roles.length > 0 ? chart.roles[0].label : ""; color: chart.roles.length > 0 ? chart.roles[0].color : "white"; width: 2; visible: chart.roles.length > 0 }
    StepSeries { id: s1; objectName: "series1"; axisX: axisX; axisY: axisY; name: chart.roles.length > 1 ? chart.roles[1].label : ""; color: chart.roles.length > 1 ? chart.roles[1].color : "white"; width: 1.5; visible: chart.roles.length > 1 }
    StepSeries { id: sB; objectName: "seriesB"; axisX: axisX; axisY: axisY; name: chart.statsB && chart.roles.length > 0 ? chart.roles[0].label + " (B)" : ""; color: Theme.seriesB; width: 2; visible: chart.statsB !== null }
    SeriesFeeder { id: f0; stats: chart.roles.length > 0 ? chart.stats : null; series: s0; role: chart.roles.length > 0 ? chart.roles[0].role : ""; scale: chart.roles.length > 0 ? (chart.roles[0].scale || 1) : 1 }
    SeriesFeeder { id: f1; stats: chart.roles.length > 1 ? chart.stats : null; series: s1; role: chart.roles.length > 1 ? chart.roles[1].role : ""; scale: chart.roles.length > 1 ? (chart.roles[1].scale || 1) : 1 }
    SeriesFeeder { id: fB; stats: chart.statsB; series: sB; role: chart.roles.length > 0 ? chart.roles[0].role : ""; scale: chart.roles.length > 0 ? (chart.roles[0].scale || 1) : 1 }
    property alias points: f0.points
    // An empty plot says so, as the heatmap does, rather than show bare axes.
    Text {
        objectName: "noStepsText"
        visible: chart.points === 0
        x: chart.plotArea.x + (chart.plotArea.width - width) / 2
        y: chart.plotArea.y + (chart.plotArea.height - height) / 2
        text: qsTr("no steps yet")
        color: Theme.dim
        font.pixelSize: Theme.small
    }
    // The shown step (scrubber position), drawn over the plot area.
    Rectangle {
        visible: chart.viewStep >= 0 && chart.planned > 1
        width: 1
        color: "#90ffffff"
        y: chart.plotArea.y
        height: chart.plotArea.height
        x: chart.plotArea.x + chart.plotArea.width * Math.max(0, chart.viewStep) / Math.max(1, axisX.max - axisX.min)
    }
}
