import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Dlmscope

// The scrubber: any recorded step, grid, heatmaps and charts in sync; play / pause the replay.
Rectangle {
    id: bar
    property RunView run: App.runs.run
    color: Theme.panel
    radius: Theme.radius
    border.color: Theme.border
    implicitHeight: 44

    RowLayout {
        anchors.fill: parent
        anchors.margins: 6
        spacing: 8
        Button {
            id: playButton
            objectName: "replayButton"
            enabled: !App.runs.running && bar.run.stepCount > 0
            onClicked: App.runs.replaying ? App.runs.stopReplay() : App.runs.startReplay()
            implicitWidth: 36; implicitHeight: 28
            ToolTip.text: qsTr("Play / pause the replay"); ToolTip.visible: hovered
            // Drawn, not a font glyph: the pause sign (U+23F8) is missing from common fonts.
            contentItem: Item {
                readonly property color ink: playButton.enabled ? Theme.text : Theme.disabledText
                Row {
                    objectName: "pauseIcon"
                    visible: App.runs.replaying
                    anchors.centerIn: parent
                    spacing: 4
                    Rectangle { width: 4; height: 12; color: parent.parent.ink }
                    Rectangle { width: 4; height: 12; color: parent.parent.ink }
                }
                Canvas {
                    objectName: "playIcon"
                    visible: !App.runs.replaying
                    anchors.centerIn: parent
                    width: 12; height: 12
                    property color ink: parent.ink
                    onInkChanged: requestPaint()
                    onPaint: {
                        const g = getContext("2d")
                        g.reset()
                        g.fillStyle = ink
                        g.beginPath(); g.moveTo(1, 0); g.lineTo(12, 6); g.lineTo(1, 12); g.closePath(); g.fill()
                    }
                }
            }
        }
        Button {
            text: "«"
            enabled: bar.run.stepCount > 0
            onClicked: { App.runs.stopReplay(); App.runs.setViewStep(0) }
            implicitWidth: 36; implicitHeight: 28
        }
        Slider {
            id: scrubber
            objectName: "scrubber"
            Layout.fillWidth: true
            from: 0
            to: Math.max(0, bar.run.stepCount - 1)
            stepSize: 1
            snapMode: Slider.SnapAlways
            value: bar.run.viewStep
            enabled: bar.run.stepCount > 1
            onMoved: { App.runs.stopReplay(); App.runs.setViewStep(Math.round(value)) }
        }
        ToggleButton {
            objectName: "liveButton"
            text: checked && enabled ? qsTr("● Live") : qsTr("Live")
            checked: bar.run.following
            enabled: App.runs.running
            onToggled: bar.run.following = checked
            implicitHeight: 28
            ToolTip.visible: hovered
            ToolTip.text: checked ? qsTr("Following the decode: each new step is shown as it comes")
                                  : qsTr("Back to the newest step, and follow the decode from there")
        }
        Label {
            text: bar.run.stepCount > 0 ? qsTr("step %1 of %2").arg(bar.run.viewStep + 1).arg(bar.run.stepCount) : qsTr("no steps")
            color: Theme.dim; font.pixelSize: Theme.small
            Layout.preferredWidth: 100
        }
    }
}
