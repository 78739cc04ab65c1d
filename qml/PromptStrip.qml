import QtQuick
import Dlmscope

// The prompt as the model sees it (template included), compactly above the grid. A very long
// prompt shows its last maxPieces pieces after a pill that counts the ones left out.
Flow {
    id: strip
    property var pieces: []
    property int maxPieces: 600
    readonly property int hidden: Math.max(0, pieces.length - maxPieces)
    spacing: 2
    Text {
        visible: strip.hidden > 0
        text: qsTr("… %1 earlier tokens").arg(strip.hidden)
        color: Theme.dim; font.pixelSize: 10; font.italic: true
        height: 16; verticalAlignment: Text.AlignVCenter
    }
    Repeater {
        model: strip.hidden > 0 ? strip.pieces.slice(strip.hidden) : strip.pieces
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
                objectName: "pieceText"
                anchors.centerIn: parent
                text: modelData.text
                textFormat: Text.PlainText   // "<s>" is a token, not strike-through markup
                color: modelData.special ? Theme.dim : "#b8c0cc"
                font.family: Theme.mono
                font.pixelSize: 10
            }
        }
    }
}
