import QtQuick
import QtTest
import Dlmscope

TestCase {
    name: "ChartsPanel"
    when: windowShown
    width: 800; height: 700
    Component { id: comp; ChartsPanel { width: 800; height: 700; run: App.run } }

    function test_everyChartHasEveryStep() {
        const panel = createTemporaryObject(comp, this)
        verify(panel)
        for (const name of ["flopsChart", "ratioChart", "rowsChart", "tpsChart", "wallChart", "eventsChart"]) {
            const chart = findChild(panel, name)
            verify(chart, name)
            compare(chart.points, App.run.stepCount, name)
            compare(chart.seriesA.count, App.run.stepCount, name)
        }
        const flops = findChild(panel, "flopsChart")
        verify(flops.yMax > 0)
        waitForRendering(panel)
    }
    function test_overlaysRunB() {
        const panel = createTemporaryObject(comp, this, {runB: App.compareRun})
        const chart = findChild(panel, "tpsChart")
        const b = chart.seriesB
        compare(b.count, App.compareRun.stepCount)
    }
}
