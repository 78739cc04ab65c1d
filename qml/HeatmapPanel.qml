import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Dlmscope

// KL heatmap (positions × steps, log scale, ε band on the colour bar) or the reveal-order map; in
// compare mode of run A or run B.
Rectangle {
    id: panel
    readonly property bool showsB: App.runs.compareMode && sides.currentIndex === 1
    property RunView run: showsB ? App.runs.compareRun : App.runs.run
    property alias heatmap: map
    // Run A's or B's map as a PNG of the map's size, in the mode on show. The side not shown is
    // drawn by a hidden map filled from that run's history for the export only, so compare mode
    // does not build a second map step by step while it decodes.
    function saveImage(onB, path) {
        const r = onB ? App.runs.compareRun : App.runs.run
        if (r === map.run) return map.saveImage(path)
        otherSide.epsilon = onB ? App.runs.compareEpsilon : App.runs.epsilon
        otherSide.run = r
        const saved = otherSide.saveImage(path)
        otherSide.run = null
        return saved
    }
    color: Theme.panel
    radius: Theme.radius
    border.color: Theme.border

    ColumnLayout {
        anchors.fill: parent
        anchors.margins: 6
        spacing: 4
        RowLayout {
            Layout.fillWidth: true
            TabBar {
                id: tabs
                objectName: "heatmapModes"
                PanelTab { text: qsTr("KL per step") }
                PanelTab { text: qsTr("Reveal order") }
            }
            TabBar {
                id: sides
                objectName: "heatmapSides"
                visible: App.runs.compareMode
                Layout.leftMargin: 12
                PanelTab { text: qsTr("Run A") }
                PanelTab { text: qsTr("Run B") }
            }
            Label {
                Layout.fillWidth: true
                horizontalAlignment: Text.AlignRight
                text: map.hoverText
                textFormat: Text.PlainText
                color: Theme.text; font.pixelSize: Theme.small
                elide: Text.ElideLeft
            }
        }
        HeatmapItem {
            id: map
            objectName: "heatmap"
            Layout.fillWidth: true
            Layout.fillHeight: true
            run: panel.run
            mode: tabs.currentIndex === 0 ? "kl" : "reveal"
            epsilon: panel.showsB ? App.runs.compareEpsilon : App.runs.epsilon
        }
    }
    HeatmapItem {
        id: otherSide
        objectName: "heatmapOtherSide"
        visible: false
        width: map.width; height: map.height
        mode: map.mode
    }
}
