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
    // In compare mode the PNG export keeps both sides, as the grid's does: the side not shown is
    // held by a second, hidden map of the same size and mode.
    readonly property HeatmapItem heatmapA: showsB ? otherSide : map
    readonly property HeatmapItem heatmapB: App.runs.compareMode ? (showsB ? map : otherSide) : null
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
        run: App.runs.compareMode ? (panel.showsB ? App.runs.run : App.runs.compareRun) : null
        mode: map.mode
        epsilon: panel.showsB ? App.runs.epsilon : App.runs.compareEpsilon
    }
}
