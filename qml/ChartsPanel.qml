import QtQuick
import QtQuick.Layouts
import Dlmscope

// The live cost charts of a run (design.md §6): paper FLOPs against the dense baseline, their
// cumulative ratio, rows computed M_t, throughput, wall time and revision events per step.
GridLayout {
    id: panel
    property RunView run
    property RunView runB: null   // compare mode overlays run B
    columns: 2
    rowSpacing: 4
    columnSpacing: 4
    readonly property int planned: Math.max(run ? run.plannedSteps : 1, runB ? runB.plannedSteps : 1)
    readonly property int viewStep: run ? run.viewStep : -1

    function niceMax(a, b) { return Math.max(a || 0, b || 0) }

    ChartCard {
        objectName: "flopsChart"
        Layout.fillWidth: true; Layout.fillHeight: true
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
        Layout.fillWidth: true; Layout.fillHeight: true
        heading: qsTr("Cumulative FLOPs ratio (strategy / dense)")
        stats: panel.run ? panel.run.stats : null
        statsB: panel.runB ? panel.runB.stats : null
        planned: panel.planned; viewStep: panel.viewStep
        roles: [{role: "cumRatio", label: qsTr("ratio"), color: Theme.good, scale: 1}]
        // At least 1 (the dense line), more when a strategy costs more than dense (WINO's N + B).
        yMax: Math.max(1, panel.niceMax(stats ? stats.maxCumRatio : 0, statsB ? statsB.maxCumRatio : 0))
    }
    ChartCard {
        objectName: "rowsChart"
        Layout.fillWidth: true; Layout.fillHeight: true
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
        Layout.fillWidth: true; Layout.fillHeight: true
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
        Layout.fillWidth: true; Layout.fillHeight: true
        heading: qsTr("Wall time per step (ms)")
        stats: panel.run ? panel.run.stats : null
        statsB: panel.runB ? panel.runB.stats : null
        planned: panel.planned; viewStep: panel.viewStep
        roles: [{role: "wallMs", label: qsTr("ms"), color: Theme.warn, scale: 1}]
        yMax: panel.niceMax(stats ? stats.maxWallMs : 0, statsB ? statsB.maxWallMs : 0)
    }
    ChartCard {
        objectName: "eventsChart"
        Layout.fillWidth: true; Layout.fillHeight: true
        heading: qsTr("Remasks / flip-flops per step")
        stats: panel.run ? panel.run.stats : null
        planned: panel.planned; viewStep: panel.viewStep
        roles: [{role: "remasks", label: qsTr("remasks"), color: Theme.error, scale: 1},
                {role: "flipflops", label: qsTr("flip-flops"), color: "#ff6bd6", scale: 1}]
        yMax: Math.max(1, stats ? stats.maxEvents : 0)
        integerAxis: true
    }
}
