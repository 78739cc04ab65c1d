import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Dlmscope

// Compare mode: run A and run B (same prompt and seed) side by side, grids in lock-step, their
// answers with the differences highlighted, cost curves overlaid and the summary.
ColumnLayout {
    id: pane
    spacing: Theme.spacing
    property var summary: App.runs.compareSummary
    property alias gridB: gridB  // exported beside A's grid
    // Local against remote (or any two models): each answer says where it was decoded.
    readonly property bool twoSources: App.runs.run.source.length > 0 && App.runs.compareRun.source.length > 0
                                       && App.runs.run.source !== App.runs.compareRun.source
    // The inspected position, and on which side (its cell is outlined there only).
    property int selectedPosition: -1
    property bool selectedOnB: false
    signal positionClicked(int pos, bool onB)
    // The box below the cards shows both answers whole: on a short pane the cards leave theirs out
    // and keep the rows for the grids.
    readonly property int cardAnswerLines: height < 420 ? 0 : 2

    // One side's answer under its heading: the word diff (rich text, lines kept) once both runs
    // have ended, the plain text while they decode; it scrolls past the box's height.
    component AnswerColumn: ColumnLayout {
        property string heading
        property color tint
        property string scrollName
        property var html  // undefined until the summary exists
        property string plain
        Layout.fillWidth: true
        Layout.fillHeight: true
        Label { text: heading; color: tint; font.pixelSize: Theme.small; font.bold: true }
        ScrollView {
            id: answerScroll
            objectName: scrollName
            Layout.fillWidth: true; Layout.fillHeight: true
            implicitHeight: answerLabel.implicitHeight
            clip: true
            contentWidth: availableWidth
            Label {
                id: answerLabel
                objectName: scrollName + "Text"
                width: answerScroll.availableWidth
                textFormat: html !== undefined ? Text.RichText : Text.PlainText
                wrapMode: Text.Wrap
                text: html !== undefined ? html : plain
                color: Theme.text; font.pixelSize: Theme.body
            }
        }
    }

    RowLayout {
        Layout.fillWidth: true
        Layout.fillHeight: true
        spacing: Theme.spacing
        // Where each side ran is named below, once, when the two differ ("compareSources"): a
        // caption has no room for it beside the strategy.
        GridPane {
            objectName: "gridA"
            Layout.fillWidth: true; Layout.fillHeight: true
            run: App.runs.run
            answerLines: pane.cardAnswerLines
            emptyText: ""  // the captions say what each side waits for
            caption: qsTr("A · ") + (App.runs.run.hasRun ? App.runs.run.strategyLabel : "")
            selectedPosition: pane.selectedOnB ? -1 : pane.selectedPosition
            onPositionClicked: (p) => pane.positionClicked(p, false)
        }
        GridPane {
            id: gridB
            objectName: "gridB"
            Layout.fillWidth: true; Layout.fillHeight: true
            run: App.runs.compareRun
            answerLines: pane.cardAnswerLines
            emptyText: ""
            caption: qsTr("B · ") + (App.runs.compareRun.hasRun ? App.runs.compareRun.strategyLabel : (App.runs.running ? qsTr("waiting for A") : qsTr("press Run to decode A and B")))
            selectedPosition: pane.selectedOnB ? pane.selectedPosition : -1
            onPositionClicked: (p) => pane.positionClicked(p, true)
        }
    }
    // The answers whole, as high as they need up to 40 % of the pane (a short window keeps the
    // grids their rows); past that they scroll.
    Rectangle {
        objectName: "compareBox"
        Layout.fillWidth: true
        Layout.preferredHeight: Math.min(boxContent.implicitHeight + 2 * Theme.spacing,
                                         Math.max(90, pane.height * 0.4))
        color: Theme.panel; radius: Theme.radius; border.color: Theme.border
        ColumnLayout {
            id: boxContent
            anchors.fill: parent
            anchors.margins: Theme.spacing
            spacing: 4
            Label {
                objectName: "compareSources"
                Layout.fillWidth: true
                visible: pane.twoSources
                textFormat: Text.StyledText
                elide: Text.ElideRight
                font.pixelSize: Theme.small
                color: Theme.text
                // A source names a folder or a server, which may hold < or &: escaped for the markup.
                function escaped(t) { return t.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;") }
                text: qsTr("<b><font color='%1'>A</font></b>: %2 · <b><font color='%3'>B</font></b>: %4")
                      .arg(Theme.seriesA).arg(escaped(App.runs.run.source)).arg(Theme.seriesB).arg(escaped(App.runs.compareRun.source))
            }
            RowLayout {
                // What B changed against A ("temperature 0 → 0.7 · seed 0 → 3"), whole on hover;
                // plain text, since a value may be any text (a guider's folder).
                objectName: "settingChangesRow"
                Layout.fillWidth: true
                visible: pane.summary.settingChanges !== undefined
                spacing: 4
                Label { text: "B"; color: Theme.seriesB; font.bold: true; font.pixelSize: Theme.small }
                Label {
                    id: settingChanges
                    objectName: "settingChanges"
                    Layout.fillWidth: true
                    textFormat: Text.PlainText
                    elide: Text.ElideRight
                    font.pixelSize: Theme.small
                    color: Theme.text
                    text: qsTr("changes: %1").arg(pane.summary.settingChanges ? pane.summary.settingChanges
                                                                              : qsTr("nothing (the same settings)"))
                    HoverHandler { id: changesHover }
                    ToolTip.visible: changesHover.hovered && settingChanges.truncated
                    ToolTip.text: text
                }
            }
            RowLayout {
                Layout.fillWidth: true
                Layout.fillHeight: true
                spacing: 16
                AnswerColumn {
                    heading: qsTr("A answer"); tint: Theme.seriesA; scrollName: "answerAScroll"
                    html: pane.summary.textA; plain: App.runs.run.answerText
                }
                AnswerColumn {
                    heading: qsTr("B answer"); tint: Theme.seriesB; scrollName: "answerBScroll"
                    html: pane.summary.textB; plain: App.runs.compareRun.answerText
                }
                GridLayout {
                    columns: 2
                    columnSpacing: 10
                    rowSpacing: 2
                    visible: pane.summary.agree !== undefined
                    Label { text: qsTr("answers"); color: Theme.dim; font.pixelSize: Theme.small }
                    Label { objectName: "agreement"; text: pane.summary.agree ? qsTr("agree") : qsTr("differ (%1 words)").arg(pane.summary.changedWords); color: pane.summary.agree ? Theme.good : Theme.warn; font.bold: true; font.pixelSize: Theme.small }
                    Label { text: qsTr("FLOPs ratio A / B"); color: Theme.dim; font.pixelSize: Theme.small }
                    Label { text: (pane.summary.flopsAoverB || 0).toFixed(3); color: Theme.text; font.pixelSize: Theme.small }
                    Label { text: qsTr("vs dense: A, B"); color: Theme.dim; font.pixelSize: Theme.small }
                    Label { text: (pane.summary.flopsRatioA || 0).toFixed(3) + ", " + (pane.summary.flopsRatioB || 0).toFixed(3); color: Theme.text; font.pixelSize: Theme.small }
                    Label { text: qsTr("vs the baseline run: A, B"); color: Theme.dim; font.pixelSize: Theme.small }
                    Label { objectName: "toBaseline"; text: (pane.summary.flopsToBaselineA || 0).toFixed(3) + ", " + (pane.summary.flopsToBaselineB || 0).toFixed(3); color: Theme.text; font.pixelSize: Theme.small }
                    Label { text: qsTr("speedup of A"); color: Theme.dim; font.pixelSize: Theme.small }
                    Label { text: (pane.summary.speedupAoverB || 0).toFixed(2) + "×"; color: Theme.text; font.pixelSize: Theme.small }
                    Label { text: qsTr("E2E TPS A, B"); color: Theme.dim; font.pixelSize: Theme.small }
                    Label { text: (pane.summary.tpsA || 0).toFixed(0) + ", " + (pane.summary.tpsB || 0).toFixed(0); color: Theme.text; font.pixelSize: Theme.small }
                    Label { text: qsTr("steps A, B"); color: Theme.dim; font.pixelSize: Theme.small }
                    Label { text: (pane.summary.stepsA || 0) + ", " + (pane.summary.stepsB || 0); color: Theme.text; font.pixelSize: Theme.small }
                }
            }
        }
    }
}
