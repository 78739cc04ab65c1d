import QtQuick
import Dlmscope

// The prompt as the model sees it (template included), compactly above the grid.
Flow {
    id: strip
    property var pieces: []
    property int maxPieces: 160
    spacing: 2
    Repeater {
        model: strip.pieces.length > strip.maxPieces ? strip.pieces.slice(strip.pieces.length - strip.maxPieces) : strip.pieces
        delegate: Rectangle {
            required property var modelData
            height: 16
            width: label.implicitWidth + 6
            radius: modelData.special ? 8 : 2
            color: modelData.special ? "transparent" : "#2a303b"
            border.width: modelData.special ? 1 : 0
            border.color: Theme.dim
            Text {
                id: label
                anchors.centerIn: parent
                text: modelData.text
                color: modelData.special ? Theme.dim : "#b8c0cc"
                font.family: Theme.mono
                font.pixelSize: 10
            }
        }
    }
}
