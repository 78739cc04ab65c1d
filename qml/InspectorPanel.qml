import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import QtCharts
import Dlmscope

// Everything about one position up to the shown step: its top-k candidates over the steps,
// confidence, entropy, KL against ε, when it was unmasked / locked, and its events. Steps are
// counted from 1 as on the timeline (step k: the canvas after k forwards).
Rectangle {
    id: inspector
    objectName: "inspector"
    property RunView run: App.runs.run
    property string side: ""  // compare mode: "A" or "B", the run inspected
    property real epsilon: App.runs.epsilon  // the inspected run's lock threshold (0: none)
    property int position: -1
    property var info: position >= 0 && run && run.viewStep >= 0 ? run.positionDetails(position) : ({})
    signal closeRequested()
    property alias klAxis: ky
    property alias klSeries: klSeries
    property alias epsSeries: epsSeries
    // One column for the candidates: as wide as the widest (so "<|endoftext|>" reads whole), at most 170 px.
    readonly property real candidateWidth: {
        const c = info.current ? info.current.candidates : []
        let w = 40
        for (let i = 0; i < c.length; ++i) w = Math.max(w, candidateMetrics.advanceWidth(c[i].text) + 4)
        return Math.min(w, 170)
    }
    FontMetrics { id: candidateMetrics; font.family: Theme.mono; font.pixelSize: Theme.small }
    color: Theme.panelRaised
    border.color: Theme.border
    radius: Theme.radius

    function fill(series, points, transform) {
        series.clear()
        if (!points) return
        for (let i = 0; i < points.length; ++i) {
            const v = points[i].value
            if (v !== undefined && v !== null && !isNaN(v)) series.append(points[i].step + 1, transform ? transform(v) : v)
        }
    }
    onInfoChanged: {
        fill(confSeries, info.confidence)
        fill(entSeries, info.entropy)
        // log10 on a linear axis labelled "1eN": Qt's LogValueAxis drew no labels at this height.
        fill(klSeries, info.kl, v => Math.log10(Math.max(v, 1e-9)))
        drawEpsilon()
    }
    onEpsilonChanged: drawEpsilon()
    function drawEpsilon() {
        epsSeries.clear()
        if (epsilon > 0 && run) {
            const e = Math.log10(epsilon)
            epsSeries.append(1, e)
            epsSeries.append(Math.max(2, run.plannedSteps), e)
        }
    }

    ScrollView {
        id: scroller
        objectName: "inspectorScroll"
        anchors.fill: parent
        anchors.margins: 10
        contentWidth: availableWidth
        contentHeight: column.height
        clip: true
        // Shown whenever there is more below: the panel's parts otherwise end at its edge unseen.
        ScrollBar.vertical.policy: contentHeight > availableHeight + 1 ? ScrollBar.AlwaysOn : ScrollBar.AsNeeded
        ColumnLayout {
            id: column
            width: scroller.availableWidth
            // The panel's height; more only when its parts need more (a small window): then it
            // scrolls. Read from the panel: a ScrollView's own size follows its content's until its
            // anchors apply, and this is its content (a binding loop while the panel is made).
            height: Math.max(inspector.height - 2 * scroller.anchors.margins, implicitHeight)
            spacing: 6
            RowLayout {
                Layout.fillWidth: true
                Label {
                    objectName: "inspectorTitle"
                    text: inspector.side !== "" ? qsTr("Position %1 of run %2").arg(inspector.position).arg(inspector.side)
                                                : qsTr("Position %1").arg(inspector.position)
                    color: Theme.text; font.pixelSize: Theme.title; font.bold: true
                    Layout.fillWidth: true
                }
                Button { text: "✕"; onClicked: inspector.closeRequested(); implicitWidth: 30; implicitHeight: 26 }
            }
            GridLayout {
                columns: 4
                columnSpacing: 12
                rowSpacing: 2
                Label { text: qsTr("token"); color: Theme.dim; font.pixelSize: Theme.small }
                Label { objectName: "tokenText"; textFormat: Text.PlainText; text: inspector.info.text !== undefined ? "“" + inspector.info.text + "” (" + inspector.info.token + ")" : "—"; color: Theme.text; font.family: Theme.mono; font.pixelSize: Theme.small }
                Label { text: qsTr("state"); color: Theme.dim; font.pixelSize: Theme.small }
                Label { text: inspector.info.state || "—"; color: Theme.text; font.pixelSize: Theme.small }
                Label { text: qsTr("unmasked at"); color: Theme.dim; font.pixelSize: Theme.small }
                Label { text: inspector.info.revealStep >= 0 ? qsTr("step %1").arg(inspector.info.revealStep + 1) : "—"; color: Theme.text; font.pixelSize: Theme.small }
                Label { text: qsTr("locked at"); color: Theme.dim; font.pixelSize: Theme.small }
                Label { text: inspector.info.lockStep >= 0 ? qsTr("step %1").arg(inspector.info.lockStep + 1) : "—"; color: Theme.text; font.pixelSize: Theme.small }
                Label { text: qsTr("block"); color: Theme.dim; font.pixelSize: Theme.small }
                Label { text: inspector.info.block !== undefined ? inspector.info.block : "—"; color: Theme.text; font.pixelSize: Theme.small }
                // Guided Diffusion only: whether the guider agreed with the token or it went in without.
                Label { visible: guiderWhy.visible; Layout.row: 3; Layout.column: 0; text: qsTr("guider"); color: Theme.dim; font.pixelSize: Theme.small }
                Label {
                    id: guiderWhy
                    objectName: "guiderReason"
                    visible: inspector.info.guider !== undefined
                    text: inspector.info.guider || ""
                    wrapMode: Text.Wrap
                    Layout.row: 3
                    Layout.column: 1
                    Layout.columnSpan: 3
                    Layout.fillWidth: true
                    color: Theme.text; font.pixelSize: Theme.small
                }
            }

            // A locked or frozen row's distribution is not recomputed: show the last one computed, and
            // say why in the word the state line uses (other skipped rows are a strategy's cache).
            Label {
                objectName: "topkHeading"
                readonly property int shownStep: inspector.info.current ? inspector.info.current.step : -1
                readonly property int viewStep: inspector.run ? inspector.run.viewStep : -1
                text: shownStep < 0 ? qsTr("Top-k: none computed yet")
                    : shownStep === viewStep ? qsTr("Top-k at step %1").arg(shownStep + 1)
                    : qsTr("Top-k at step %1 (not recomputed since: %2)").arg(shownStep + 1)
                          .arg(inspector.info.state === "locked" ? qsTr("locked")
                               : inspector.info.state === "frozen" ? qsTr("frozen") : qsTr("cached"))
                color: Theme.dim; font.pixelSize: Theme.small
                Layout.fillWidth: true; wrapMode: Text.Wrap
            }
            Repeater {
                model: inspector.info.current ? inspector.info.current.candidates : []
                delegate: RowLayout {
                    required property var modelData
                    Layout.fillWidth: true
                    Label {
                        objectName: "candidateText"
                        text: modelData.text; textFormat: Text.PlainText
                        color: Theme.text; font.family: Theme.mono; font.pixelSize: Theme.small
                        Layout.preferredWidth: inspector.candidateWidth; elide: Text.ElideMiddle
                    }
                    Rectangle { Layout.preferredWidth: 160 * modelData.p; height: 10; color: Theme.accent }
                    Label { text: (modelData.p * 100).toFixed(1) + "%"; color: Theme.dim; font.pixelSize: Theme.small }
                }
            }

            ChartView {
                Layout.fillWidth: true
                Layout.preferredHeight: 150
                title: qsTr("confidence and entropy")
                titleColor: Theme.text; titleFont.pixelSize: Theme.small
                backgroundColor: Theme.panelRaised; plotAreaColor: "#14171c"
                legend.labelColor: Theme.dim; legend.font.pixelSize: 9
                antialiasing: true
                margins { top: 0; bottom: 0; left: 0; right: 0 }
                StepAxis { id: ix; steps: inspector.run ? inspector.run.plannedSteps : 2 }
                ValueAxis { id: iy; min: 0; max: 1; labelsColor: Theme.dim; labelsFont.pixelSize: 9; gridLineColor: "#262a33" }
                ValueAxis { id: iye; min: 0; max: 8; labelsColor: Theme.dim; labelsFont.pixelSize: 9; gridVisible: false }
                StepSeries { id: confSeries; name: qsTr("confidence"); axisX: ix; axisY: iy; color: Theme.good; width: 2 }
                StepSeries { id: entSeries; name: qsTr("entropy (nats)"); axisX: ix; axisYRight: iye; color: Theme.warn; width: 1.5 }
            }
            ChartView {
                Layout.fillWidth: true
                Layout.preferredHeight: 150
                objectName: "klChart"
                // ε only where the run's strategy locks by it (a FreeCache run has none to draw).
                title: epsSeries.visible ? qsTr("KL(p_t ‖ p_{t−1}) against ε") : qsTr("KL(p_t ‖ p_{t−1})")
                titleColor: Theme.text; titleFont.pixelSize: Theme.small
                backgroundColor: Theme.panelRaised; plotAreaColor: "#14171c"
                legend.labelColor: Theme.dim; legend.font.pixelSize: 9
                antialiasing: true
                // No right axis here: the last step's label needs room past the plot's edge.
                margins { top: 0; bottom: 0; left: 0; right: 10 }
                StepAxis { id: kx; steps: inspector.run ? inspector.run.plannedSteps : 2 }
                ValueAxis { id: ky; objectName: "klAxis"; min: -9; max: 1; tickCount: 6; labelsColor: Theme.dim; labelsFont.pixelSize: 9; labelFormat: "1e%.0f"; gridLineColor: "#262a33" }
                StepSeries { id: klSeries; objectName: "klSeries"; name: qsTr("KL"); axisX: kx; axisY: ky; color: Theme.accent; width: 2 }
                LineSeries { id: epsSeries; name: qsTr("ε"); axisX: kx; axisY: ky; color: "white"; width: 1; style: Qt.DashLine; visible: count > 0 }
            }

            Label { text: qsTr("Events"); color: Theme.dim; font.pixelSize: Theme.small }
            // A position has a few events (unmask, lock, a remask...): the list takes their height, up
            // to eight lines, and the candidates' history below takes the rest.
            Label {
                objectName: "noEvents"
                visible: eventList.count === 0
                text: qsTr("none up to this step")
                color: Theme.dim; font.pixelSize: Theme.small; font.italic: true
            }
            ListView {
                id: eventList
                objectName: "eventList"
                Layout.fillWidth: true
                Layout.preferredHeight: Math.min(contentHeight, 8 * 16)
                visible: count > 0
                clip: true
                model: inspector.info.events || []
                delegate: Label {
                    required property var modelData
                    text: qsTr("step %1: %2 “%3”").arg(modelData.step + 1).arg(modelData.event).arg(modelData.text)
                    textFormat: Text.PlainText
                    color: Theme.text; font.pixelSize: Theme.small; font.family: Theme.mono
                }
            }
            Label { text: qsTr("Top-3 over the steps"); color: Theme.dim; font.pixelSize: Theme.small }
            ListView {
                objectName: "topkHistory"
                Layout.fillWidth: true
                Layout.fillHeight: true
                Layout.minimumHeight: 120
                clip: true
                ScrollBar.vertical: ScrollBar {}
                model: inspector.info.topk || []
                delegate: Label {
                    required property var modelData
                    textFormat: Text.PlainText
                    text: qsTr("step %1").arg(modelData.step + 1) + "  " + modelData.candidates.slice(0, 3).map(c => c.text + " " + (c.p * 100).toFixed(0) + "%").join("   ")
                    color: Theme.dim; font.pixelSize: 10; font.family: Theme.mono
                }
            }
        }
    }
}
