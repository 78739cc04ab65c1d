import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Dlmscope

// The live cost charts of a run (design.md §6): paper FLOPs against the dense baseline, their
// cumulative ratio, rows computed M_t, throughput, wall time and revision events per step.
// Two columns where there is room for them, one otherwise; the charts share the height down to
// minChartHeight each, below which the panel scrolls, so every chart stays reachable.
ScrollView {
    id: panel
    property RunView run
    property RunView runB: null   // compare mode overlays run B
    property int minChartHeight: 170
    readonly property int columns: width >= 520 ? 2 : 1  // width, not availableWidth: the scroll bar must not flip it
    readonly property int planned: Math.max(run ? run.plannedSteps : 1, runB ? runB.plannedSteps : 1)
    readonly property int viewStep: run ? run.viewStep : -1
    contentWidth: availableWidth
    contentHeight: backdrop.height
    // Fixed, not from the content: the grid's height follows the panel's, so an implicit size
    // taken from it would feed back into the layout that sizes the panel.
    implicitWidth: 560
    implicitHeight: 400
    clip: true

    function niceMax(a, b) { return Math.max(a || 0, b || 0) }

    // All six charts as one PNG, those scrolled out of view included (the grid is rendered, not
    // the screen); in compare mode with both runs' lines. Says in the status line where it went.
    function exportImage(path) {
        const ok = backdrop.grabToImage(result => {
            if (result.saveToFile(path)) App.reportStatus(qsTr("Exported the charts to %1").arg(path))
            else App.reportError(qsTr("Could not write %1").arg(path))
        })
        if (!ok) App.reportError(qsTr("Could not render the charts for %1").arg(path))
    }

    // The panel's colour behind the cards, so that an exported image has no transparent gaps.
    Rectangle {
        id: backdrop
        width: panel.availableWidth
        height: grid.height
        color: Theme.window
        GridLayout {
            id: grid
            objectName: "chartsGrid"
            width: panel.availableWidth
            // Computed, not implicitHeight: the charts fill whatever height they are given.
            height: Math.max(panel.height - panel.topPadding - panel.bottomPadding,
                             Math.ceil(6 / columns) * (panel.minChartHeight + rowSpacing))
            columns: panel.columns
            rowSpacing: 4
            columnSpacing: 4
            ChartCard {
                objectName: "flopsChart"
                Layout.fillWidth: true; Layout.fillHeight: true; Layout.minimumHeight: panel.minChartHeight
                heading: qsTr("Paper FLOPs per step (GFLOP)")
                stats: panel.run ? panel.run.stats : null
                statsB: panel.runB ? panel.runB.stats : null
                planned: panel.planned; viewStep: panel.viewStep
                roles: [{role: "paperFlops", label: qsTr("strategy"), color: Theme.seriesA, scale: 1e-9},
                        {role: "denseFlops", label: qsTr("dense"), color: Theme.seriesDense, scale: 1e-9}]
                yMax: panel.niceMax(stats ? stats.maxFlops : 0, statsB ? statsB.maxFlops : 0) * 1e-9
            }
            ChartCard {
                objectName: "ratioChart"
                Layout.fillWidth: true; Layout.fillHeight: true; Layout.minimumHeight: panel.minChartHeight
                heading: qsTr("Cumulative FLOPs: strategy / reference")
                stats: panel.run ? panel.run.stats : null
                statsB: panel.runB ? panel.runB.stats : null
                planned: panel.planned; viewStep: panel.viewStep
                // First the cost so far against the baseline sampler's whole run (one dense forward
                // per generated position; its end is eval's flops_ratio_to_baseline, and run B is
                // overlaid on it), then against dense forwards of the steps taken, which leaves out
                // what fewer steps save: Guided Diffusion ends near 2 there and near 0.02 on the first.
                // Short labels: in compare mode three share a narrow chart's legend.
                roles: [{role: "cumBaseline", label: qsTr("baseline"), color: Theme.good, scale: 1},
                        {role: "cumRatio", label: qsTr("dense"), color: Theme.seriesDense, scale: 1}]
                // At least 1 (the dense line), more when a strategy costs more than dense (WINO's N + B).
                yMax: Math.max(1, panel.niceMax(stats ? stats.maxCumRatio : 0, statsB ? statsB.maxCumRatio : 0))
            }
            ChartCard {
                objectName: "rowsChart"
                Layout.fillWidth: true; Layout.fillHeight: true; Layout.minimumHeight: panel.minChartHeight
                heading: qsTr("Rows computed M_t (of N)")
                stats: panel.run ? panel.run.stats : null
                statsB: panel.runB ? panel.runB.stats : null
                planned: panel.planned; viewStep: panel.viewStep
                roles: [{role: "rows", label: qsTr("M_t"), color: Theme.seriesA, scale: 1},
                        {role: "rowsTotal", label: qsTr("N"), color: Theme.seriesDense, scale: 1}]
                yMax: panel.niceMax(stats ? stats.maxRows : 0, statsB ? statsB.maxRows : 0)
                integerAxis: true
            }
            ChartCard {
                objectName: "tpsChart"
                Layout.fillWidth: true; Layout.fillHeight: true; Layout.minimumHeight: panel.minChartHeight
                heading: qsTr("Tokens / s (step, end-to-end)")
                stats: panel.run ? panel.run.stats : null
                statsB: panel.runB ? panel.runB.stats : null
                planned: panel.planned; viewStep: panel.viewStep
                roles: [{role: "tps", label: qsTr("step TPS"), color: Theme.seriesA, scale: 1},
                        {role: "e2eTps", label: qsTr("E2E TPS"), color: Theme.good, scale: 1}]
                yMax: panel.niceMax(stats ? stats.maxTps : 0, statsB ? statsB.maxTps : 0)
            }
            ChartCard {
                objectName: "wallChart"
                Layout.fillWidth: true; Layout.fillHeight: true; Layout.minimumHeight: panel.minChartHeight
                heading: qsTr("Wall time per step (ms)")
                stats: panel.run ? panel.run.stats : null
                statsB: panel.runB ? panel.runB.stats : null
                planned: panel.planned; viewStep: panel.viewStep
                roles: [{role: "wallMs", label: qsTr("ms"), color: Theme.seriesA, scale: 1}]
                yMax: panel.niceMax(stats ? stats.maxWallMs : 0, statsB ? statsB.maxWallMs : 0)
            }
            ChartCard {
                objectName: "eventsChart"
                Layout.fillWidth: true; Layout.fillHeight: true; Layout.minimumHeight: panel.minChartHeight
                heading: qsTr("Remasks / flip-flops per step")
                stats: panel.run ? panel.run.stats : null
                planned: panel.planned; viewStep: panel.viewStep
                roles: [{role: "remasks", label: qsTr("remasks"), color: Theme.error, scale: 1},
                        {role: "flipflops", label: qsTr("flip-flops"), color: "#ff6bd6", scale: 1}]
                yMax: Math.max(1, stats ? stats.maxEvents : 0)
                integerAxis: true
            }
        }
    }
}
