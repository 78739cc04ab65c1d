import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Dlmscope

// Export ▸ Decode as animation: which steps, how fast and how large, before the file is chosen.
// A lecture shows the part of a long decode it talks about, often slower than it ran; a web page
// wants the smaller file. Opens on the whole run at the replay speed; the line at the bottom says
// what will be written.
Dialog {
    id: dialog
    objectName: "animationDialog"
    title: qsTr("Decode as animation")
    modal: true
    width: 460
    anchors.centerIn: parent

    // The options were chosen: pick the file (Main.qml's save dialog) and write it with them.
    signal chooseFile(var options)

    readonly property int steps: Math.max(App.runs.run.stepCount, App.runs.compareMode ? App.runs.compareRun.stepCount : 0)
    readonly property var options: ({ from: fromBox.value, to: toBox.value, stepsPerSecond: speedBox.value,
                                      scale: [0, 2, 1][scaleBox.currentIndex] })
    // Recomputed as the choices change (and as a running decode adds steps).
    readonly property var plan: { steps; return App.runs.animationPlan(options) }
    readonly property real automaticScale: { steps; return App.runs.animationPlan({}).scale }
    readonly property bool wholeRun: fromBox.value === 0 && toBox.value === steps

    onAboutToShow: {
        fromBox.value = 0
        toBox.value = steps
        speedBox.value = Math.round(App.runs.replaySpeed)
    }

    ColumnLayout {
        anchors.fill: parent
        spacing: 8
        Label {
            text: qsTr("Every step as the grid shows it, under a caption with the run and the step; in compare mode A above B. Step 0 is the masked canvas.")
            wrapMode: Text.Wrap; color: Theme.dim; font.pixelSize: Theme.small
            Layout.fillWidth: true
        }
        GridLayout {
            columns: 2
            columnSpacing: 10
            Layout.fillWidth: true
            Label { text: qsTr("Steps"); color: Theme.dim }
            RowLayout {
                SpinBox {
                    id: fromBox
                    objectName: "animationFrom"
                    from: 0; to: dialog.steps; editable: true
                    onValueModified: if (toBox.value < value) toBox.value = value
                }
                Label { text: qsTr("to"); color: Theme.dim }
                SpinBox {
                    id: toBox
                    objectName: "animationTo"
                    from: 0; to: dialog.steps; editable: true
                    onValueModified: if (fromBox.value > value) fromBox.value = value
                }
                Button {
                    objectName: "animationWholeRun"
                    text: qsTr("Whole run")
                    enabled: !dialog.wholeRun
                    flat: true
                    onClicked: { fromBox.value = 0; toBox.value = dialog.steps }
                }
            }
            Label { text: qsTr("Speed"); color: Theme.dim }
            RowLayout {
                SpinBox {
                    id: speedBox
                    objectName: "animationSpeed"
                    from: 1; to: 240; editable: true
                }
                Label { text: qsTr("steps a second"); color: Theme.dim }
            }
            Label { text: qsTr("Size"); color: Theme.dim }
            ComboBox {
                id: scaleBox
                objectName: "animationScale"
                Layout.fillWidth: true
                // What "automatic" picks depends on the canvas (2× up to 384 positions): say it.
                model: [qsTr("Automatic: %1× pixels for this canvas").arg(dialog.automaticScale),
                        qsTr("2× pixels: sharp on a projector"), qsTr("1× pixels: a quarter of the file")]
            }
        }
        Label {
            objectName: "animationPlan"
            Layout.fillWidth: true
            Layout.topMargin: 4
            wrapMode: Text.Wrap
            textFormat: Text.PlainText
            font.pixelSize: Theme.small
            color: dialog.plan.problem ? Theme.error : Theme.text
            text: dialog.plan.problem
                  ? dialog.plan.problem
                  : qsTr("%1 frames, %2 × %3 pixels; plays %4 s, the last frame held 3 s, then loops")
                        .arg(dialog.plan.frames).arg(dialog.plan.width).arg(dialog.plan.height)
                        .arg(dialog.plan.seconds.toFixed(1))
        }
    }

    footer: DialogButtonBox {
        Button {
            objectName: "animationChooseFile"
            text: qsTr("Choose file…")
            highlighted: true
            enabled: !dialog.plan.problem && !App.runs.exportingAnimation
            DialogButtonBox.buttonRole: DialogButtonBox.AcceptRole
        }
        Button { text: qsTr("Cancel"); DialogButtonBox.buttonRole: DialogButtonBox.RejectRole }
    }
    onAccepted: chooseFile(wholeRun ? { stepsPerSecond: speedBox.value, scale: options.scale } : options)
}
