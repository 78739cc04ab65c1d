import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Dlmscope

// Errors appear here, in the window, never as a crash or a modal box.
Rectangle {
    id: banner
    visible: App.errorString !== ""
    color: "#3a1c22"
    border.color: Theme.error
    radius: Theme.radius
    implicitHeight: visible ? row.implicitHeight + 12 : 0
    RowLayout {
        id: row
        anchors.fill: parent
        anchors.margins: 6
        Rectangle {
            width: 18; height: 18; radius: 9
            color: Theme.error
            Label { anchors.centerIn: parent; text: "!"; color: "white"; font.bold: true }
        }
        Label {
            objectName: "errorText"
            text: App.errorString
            textFormat: Text.PlainText  // names and messages as written ("<s>" is no markup)
            color: Theme.text
            wrapMode: Text.Wrap
            Layout.fillWidth: true
        }
        Button {
            objectName: "reconnectButton"
            visible: App.model.canReconnect
            text: qsTr("Reconnect")
            implicitHeight: 26
            onClicked: { App.clearError(); App.model.reconnect() }
        }
        Button { objectName: "dismissButton"; text: qsTr("Dismiss"); onClicked: App.clearError(); implicitHeight: 26 }
    }
}
