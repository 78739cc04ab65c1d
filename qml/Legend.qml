import QtQuick
import QtQuick.Layouts
import Dlmscope

// Always visible: what each colour (state) and each mark (event) in the grid means.
Flow {
    id: legend
    spacing: 10
    property var entries: App.legend
    Repeater {
        model: legend.entries
        delegate: Row {
            spacing: 4
            required property var modelData
            Rectangle {
                width: 14; height: 14; radius: 3
                anchors.verticalCenter: parent.verticalCenter
                color: modelData.kind === "state" ? modelData.color : "transparent"
                border.width: modelData.kind === "event" ? 2 : 0
                border.color: modelData.color
                Text {
                    anchors.centerIn: parent
                    text: modelData.glyph
                    color: modelData.color
                    font.pixelSize: 9; font.bold: true
                }
            }
            Text {
                text: modelData.name
                color: modelData.kind === "state" ? Theme.text : Theme.dim
                font.pixelSize: Theme.small
                anchors.verticalCenter: parent.verticalCenter
            }
        }
    }
}
