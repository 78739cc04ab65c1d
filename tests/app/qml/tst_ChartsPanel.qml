import QtQuick
import QtTest
import Dlmscope

TestCase {
    name: "ChartsPanel"
    when: windowShown
    width: 800; height: 700
    Component { id: comp; ChartsPanel { width: 800; height: 700; run: App.runs.run } }

    function test_everyChartHasEveryStep() {
        const panel = createTemporaryObject(comp, this)
        verify(panel)
        for (const name of ["flopsChart", "ratioChart", "rowsChart", "tpsChart", "wallChart", "eventsChart"]) {
            const chart = findChild(panel, name)
            verify(chart, name)
            compare(chart.points, App.runs.run.stepCount, name)
            compare(chart.seriesA.count, App.runs.run.stepCount, name)
        }
        const flops = findChild(panel, "flopsChart")
        verify(flops.yMax > 0)
        // The ratio chart draws both ratios: to the baseline run, and to dense steps.
        const ratio = findChild(panel, "ratioChart")
        compare(ratio.seriesA2.count, App.runs.run.stepCount)
        const last = App.runs.run.stepCount - 1
        fuzzyCompare(ratio.seriesA.at(last).y, App.runs.run.stats.value(last, StepStatsModel.CumBaselineRole), 1e-9)
        waitForRendering(panel)
    }
    function test_axesCoverTheDataWithDistinctLabels() {
        const panel = createTemporaryObject(comp, this)
        const ratio = findChild(panel, "ratioChart")
        // A ratio above 1 (WINO computes N + B rows) stays on the chart.
        compare(ratio.niceAxis(1.35, 4).max, 1.5)
        compare(ratio.niceAxis(1.35, 4).format, "%.1f")
        verify(ratio.yAxis.max >= Math.max(1, App.runs.run.stats.maxCumRatio))
        // Small ranges get the decimals they need: four ticks never read "1, 0, 0, 0".
        const a = ratio.niceAxis(0.0004, 4)
        compare(a.format, "%.4f")
        fuzzyCompare(a.max, 0.0006, 1e-12)
        const labels = [0, 1, 2, 3].map(i => Number((a.max * i / 3).toFixed(4)))
        compare(new Set(labels).size, 4)
        // Counting charts tick on whole numbers.
        const events = findChild(panel, "eventsChart")
        verify(events.integerAxis)
        compare(events.niceAxis(2, 4).max, 3)
        compare(events.niceAxis(2, 4).format, "%.0f")
        compare(events.niceAxis(1000, 4).max, 1500)
    }
    // One step draws no line: its point shows as a marker until a second step makes a line.
    Component { id: card; ChartCard { width: 300; height: 200; planned: 1; roles: [{role: "paperFlops", label: "FLOPs", color: "red"}] } }
    function test_aOneStepRunShowsItsPoint() {
        const chart = createTemporaryObject(card, this)
        verify(chart)
        chart.seriesA.append(1, 0.5)
        verify(chart.seriesA.pointsVisible)
        chart.seriesA.append(2, 0.7)
        verify(!chart.seriesA.pointsVisible)
    }
    // A chart with no steps says so; one with steps does not.
    Window { id: host; visible: true; width: 800; height: 700 }
    function test_anEmptyChartSaysSo() {
        const empty = createTemporaryObject(card, host.contentItem)
        verify(findChild(empty, "noStepsText").visible)
        const panel = createTemporaryObject(comp, host.contentItem)
        verify(!findChild(findChild(panel, "flopsChart"), "noStepsText").visible)
    }
    function test_overlaysRunB() {
        const panel = createTemporaryObject(comp, this, {runB: App.runs.compareRun})
        const chart = findChild(panel, "tpsChart")
        const b = chart.seriesB
        compare(b.count, App.runs.compareRun.stepCount)
        // Run A's line never takes B's colour: the wall-time line was an orange next to B's.
        for (const name of ["flopsChart", "ratioChart", "rowsChart", "tpsChart", "wallChart", "eventsChart"]) {
            const c = findChild(panel, name)
            const a = c.seriesA.color, bc = c.seriesB.color
            const apart = Math.abs(a.r - bc.r) + Math.abs(a.g - bc.g) + Math.abs(a.b - bc.b)
            verify(apart > 0.3, name + ": A " + a + " and B " + bc + " are " + apart.toFixed(2) + " apart")
        }
    }

    // A narrow, short panel stacks the charts in one column at their minimum height and scrolls.
    Component { id: narrow; ChartsPanel { width: 330; height: 480; run: App.runs.run } }
    function test_narrowPanelScrollsInsteadOfSqueezing() {
        const panel = createTemporaryObject(narrow, this)
        waitForRendering(panel)
        compare(panel.columns, 1)
        for (const name of ["flopsChart", "ratioChart", "rowsChart", "tpsChart", "wallChart", "eventsChart"]) {
            const chart = findChild(panel, name)
            verify(chart.height >= panel.minChartHeight - 0.5, name + " is " + chart.height + " px high")
            verify(chart.width >= 300, name + " is " + chart.width + " px wide")
        }
        verify(panel.contentHeight >= 6 * panel.minChartHeight, "content " + panel.contentHeight)
        verify(panel.contentHeight > panel.height)
    }
}
