import QtQuick
import QtQuick.Controls
import Dlmscope

// A tab of a panel's TabBar (KL / reveal order, run A / B). Fusion marks the current tab by a
// shade this dark theme all but hides: it is underlined in the accent, the others' text dimmed.
TabButton {
    id: tab
    width: implicitWidth
    font.pixelSize: Theme.small
    palette.buttonText: checked ? Theme.text : Theme.dim
    Rectangle {
        objectName: "currentMark"
        visible: tab.checked
        anchors { left: parent.left; right: parent.right; bottom: parent.bottom }
        height: 2
        color: Theme.accent
    }
}
