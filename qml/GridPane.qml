import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Dlmscope

// The denoising grid of one run with its prompt strip and a hover card (token, state, top-k).
Rectangle {
    id: pane
    property RunView run
    property alias grid: gridItem
    property int selectedPosition: -1
    property string caption: ""
    // Lines of the answer shown before it scrolls; 0 leaves it out (compare mode shows both
    // answers whole below the cards).
    property int answerLines: 8
    // What the empty pane says before its first run (a new user's first sight of the grid).
    property string emptyText: qsTr("No run yet. Run (Ctrl+R) decodes the prompt and shows every step here; Open trace… replays a saved run.")
    signal positionClicked(int pos)
    color: Theme.panel
    radius: Theme.radius
    border.color: Theme.border

    Text {
        objectName: "emptyGridText"
        visible: pane.emptyText !== "" && !(pane.run && pane.run.hasRun)
        anchors.centerIn: parent
        width: Math.min(pane.width - 40, 420)
        text: pane.emptyText
        color: Theme.dim
        font.pixelSize: Theme.body
        wrapMode: Text.Wrap
        horizontalAlignment: Text.AlignHCenter
    }
    ColumnLayout {
        anchors.fill: parent
        anchors.margins: Theme.spacing
        spacing: 6
        // Title and step label by anchors, not a RowLayout: the label never moves or squeezes as
        // its text changes, and a long title elides before it.
        Item {
            Layout.fillWidth: true
            implicitHeight: Math.max(paneTitle.implicitHeight, paneStep.implicitHeight)
            Text {
                id: paneTitle
                objectName: "paneTitle"
                anchors.left: parent.left
                anchors.right: paneStep.left
                anchors.rightMargin: paneStep.text !== "" ? 8 : 0
                anchors.verticalCenter: parent.verticalCenter
                readonly property string full: pane.caption !== "" ? pane.caption
                                               : (pane.run && pane.run.hasRun ? pane.run.title : qsTr("Denoising grid"))
                // A run's title too long for the pane keeps its strategy and cuts the model's
                // name ("Dream-org/Dre… · SureLock (temperature=0.3)"): the strategy is
                // what tells runs apart. Only when even that does not fit is the whole cut.
                readonly property bool shortensModel: pane.caption === "" && pane.run !== null && pane.run.hasRun
                                                      && fullTitle.implicitWidth > width
                                                      && width - strategyMetrics.advanceWidth >= 40
                text: shortensModel ? modelMetrics.elidedText + strategyMetrics.text : full
                Text { id: fullTitle; visible: false; font: paneTitle.font; text: paneTitle.full; textFormat: Text.PlainText }
                TextMetrics { id: strategyMetrics; font: paneTitle.font; text: pane.run ? " · " + pane.run.strategyLabel : "" }
                TextMetrics {
                    id: modelMetrics
                    font: paneTitle.font
                    text: pane.run ? pane.run.modelName : ""
                    elide: Text.ElideRight  // the start (a repository's org) is what is recognised
                    elideWidth: paneTitle.width - strategyMetrics.advanceWidth - 2
                }
                color: Theme.text; font.pixelSize: Theme.title; font.bold: true
                textFormat: Text.PlainText  // a model's folder name as written
                elide: Text.ElideRight
                // A caption cut short reads whole on hover ("B · SureLock (temperature=0.5)").
                HoverHandler { id: titleHover }
                readonly property bool tipShown: titleHover.hovered && (truncated || shortensModel)
                ToolTip.visible: tipShown
                ToolTip.text: full
            }
            // A finished run counts the steps it took (a threshold strategy often needs far
            // fewer than planned). Where the caption would not fit beside "step 12 / 48" (a compare
            // pane on a small window), the label shrinks to "12/48" before the caption is cut.
            Text {
                id: paneStep
                objectName: "paneStep"
                anchors.right: parent.right
                anchors.verticalCenter: parent.verticalCenter
                readonly property int shown: pane.run ? pane.run.viewStep + 1 : 0
                readonly property int total: pane.run ? (pane.run.complete ? pane.run.stepCount : pane.run.plannedSteps) : 0
                readonly property string full: qsTr("step %1 / %2").arg(shown).arg(total)
                readonly property bool compact: Math.ceil(fullTitle.implicitWidth) + 8 + Math.ceil(fullMetrics.advanceWidth) > parent.width
                text: pane.run && pane.run.stepCount > 0 ? (compact ? qsTr("%1/%2").arg(shown).arg(total) : full) : ""
                color: Theme.dim; font.pixelSize: Theme.small
                TextMetrics { id: fullMetrics; font: paneStep.font; text: paneStep.full }
            }
        }
        // At most three rows of pills; a longer prompt scrolls here, never over the grid.
        ScrollView {
            id: stripScroll
            objectName: "promptStripScroll"
            Layout.fillWidth: true
            // Three rows of pills, fewer on a short pane (at most a sixth of it: the grid keeps its rows).
            readonly property real rowStep: 16 + strip.spacing
            readonly property int rows: Math.max(1, Math.min(3, Math.floor(pane.height / 6 / rowStep)))
            Layout.preferredHeight: Math.min(strip.implicitHeight, rows * rowStep - strip.spacing)
            visible: strip.pieces.length > 0
            clip: true
            contentWidth: availableWidth
            contentHeight: strip.implicitHeight
            PromptStrip {
                id: strip
                objectName: "promptStrip"
                width: stripScroll.availableWidth
                pieces: pane.run ? pane.run.promptPieces : []
            }
        }
        ScrollView {
            id: scroll
            objectName: "gridScroll"
            Layout.fillWidth: true
            Layout.fillHeight: true
            clip: true
            contentWidth: availableWidth
            contentHeight: gridItem.contentHeight
            DenoiseGridItem {
                id: gridItem
                objectName: "denoiseGrid"
                width: scroll.availableWidth
                height: Math.max(contentHeight, 1)
                canvas: pane.run ? pane.run.canvas : null
                selectedPosition: pane.selectedPosition
                onClicked: (pos) => pane.positionClicked(pos)
            }
        }
        // The decoded answer, whole (a word problem's runs to seven lines): past answerLines it
        // scrolls rather than cut its last line, the one with the result. It can be selected and
        // copied.
        ScrollView {
            id: answerScroll
            objectName: "answerScroll"
            Layout.fillWidth: true
            // On a short window it leaves the grid the pane: at most a quarter of it (two lines at
            // least), and scrolls.
            readonly property int lines: Math.min(pane.answerLines, Math.max(2, Math.floor(pane.height / 4 / answerMetrics.lineSpacing)))
            Layout.preferredHeight: Math.min(answerText.implicitHeight, lines * answerMetrics.lineSpacing + 4)
            visible: answerText.text !== "" && pane.answerLines > 0
            clip: true
            contentWidth: availableWidth
            FontMetrics { id: answerMetrics; font: answerText.font }
            TextEdit {
                id: answerText
                objectName: "answerText"
                width: answerScroll.availableWidth
                text: pane.run ? pane.run.answerText : ""
                readOnly: true
                selectByMouse: true
                color: Theme.text
                selectionColor: Theme.accent
                font.pixelSize: Theme.body
                wrapMode: TextEdit.Wrap
            }
        }
        // Right or wrong, for a worked example whose answer is known.
        Rectangle {
            objectName: "verdictBadge"
            visible: pane.run !== null && pane.run.verdict !== ""
            Layout.fillWidth: true
            implicitHeight: verdictText.implicitHeight + 8
            radius: 4
            color: pane.run && pane.run.verdict === "correct" ? "#1f3d2a" : "#4a2226"
            border.color: pane.run && pane.run.verdict === "correct" ? "#3fb950" : Theme.error
            Text {
                id: verdictText
                objectName: "verdictText"
                // Scrubbed back, the grid shows an earlier step: the verdict is the run's final one.
                readonly property string when: pane.run && pane.run.viewStep >= 0 && pane.run.viewStep < pane.run.stepCount - 1
                                                ? qsTr(" (at the end of the run, step %1)").arg(pane.run.stepCount) : ""
                anchors.fill: parent
                anchors.margins: 4
                verticalAlignment: Text.AlignVCenter
                color: Theme.text
                font.pixelSize: Theme.body
                font.bold: true
                wrapMode: Text.Wrap
                textFormat: Text.PlainText  // the model's answer as it wrote it
                text: !pane.run || pane.run.verdictText === "" ? "" : pane.run.verdictText + when
            }
        }
        // The strategy's step limit ended the run before every position was decoded: say so, so an
        // unfinished answer is not read as the model's last word.
        Rectangle {
            objectName: "unfinishedBadge"
            visible: pane.run !== null && pane.run.unfinishedPositions > 0
            Layout.fillWidth: true
            implicitHeight: unfinishedText.implicitHeight + 8
            radius: 4
            color: "#3d3218"
            border.color: Theme.warn
            Text {
                id: unfinishedText
                anchors.fill: parent
                anchors.margins: 4
                verticalAlignment: Text.AlignVCenter
                color: Theme.text
                font.pixelSize: Theme.body
                wrapMode: Text.Wrap
                text: !pane.run || pane.run.unfinishedPositions === 0 ? ""
                      : qsTr("Unfinished: the step limit ended the run after %1 steps with %2 positions still masked")
                            .arg(pane.run.stepCount).arg(pane.run.unfinishedPositions)
            }
        }
    }

    // Hover card: the hovered cell's token, state and best candidates at the shown step.
    Rectangle {
        id: card
        objectName: "hoverCard"
        property int pos: gridItem.hoveredPosition
        property var info: pos >= 0 && pane.run && pane.run.viewStep >= 0 ? pane.run.positionDetails(pos) : ({})
        visible: pos >= 0 && info.pos !== undefined
        z: 10
        width: 220
        height: cardColumn.implicitHeight + 12
        color: Theme.panelRaised
        border.color: Theme.border
        radius: Theme.radius
        x: {
            if (pos < 0) return 0
            const r = gridItem.cellRect(pos)
            const p = gridItem.mapToItem(pane, r.x + r.width + 6, 0)
            return Math.min(p.x, pane.width - width - 4)
        }
        y: {
            if (pos < 0) return 0
            const r = gridItem.cellRect(pos)
            const p = gridItem.mapToItem(pane, 0, r.y)
            return Math.max(4, Math.min(p.y, pane.height - height - 4))
        }
        Column {
            id: cardColumn
            x: 6; y: 6
            width: parent.width - 12
            spacing: 2
            Text {
                text: qsTr("#%1 · %2 · “%3”").arg(card.pos).arg(card.info.state || "").arg(card.info.text || "")
                textFormat: Text.PlainText
                color: Theme.text; font.pixelSize: Theme.small; font.bold: true
            }
            // A locked (or cached) row is not recomputed: its candidates are from an earlier step.
            Text {
                objectName: "hoverCandidatesStep"
                visible: !card.info.current || card.info.current.step !== pane.run.viewStep
                text: card.info.current ? qsTr("candidates of step %1").arg(card.info.current.step + 1) : qsTr("no candidates computed yet")
                color: Theme.dim; font.pixelSize: Theme.small
            }
            Repeater {
                model: card.info.current ? card.info.current.candidates : []
                delegate: Row {
                    required property var modelData
                    spacing: 6
                    Rectangle { width: 80 * modelData.p; height: 10; color: Theme.accent; anchors.verticalCenter: parent.verticalCenter }
                    Text {
                        text: modelData.text + "  " + (modelData.p * 100).toFixed(1) + "%"
                        textFormat: Text.PlainText
                        color: Theme.text; font.family: Theme.mono; font.pixelSize: Theme.small
                    }
                }
            }
        }
    }
}
