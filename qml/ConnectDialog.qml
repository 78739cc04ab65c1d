import QtQuick
import QtQuick.Controls
import QtQuick.Dialogs
import QtQuick.Layouts
import Dlmscope

// "Connect to engine…": a dlmscope server (docs/server.md) by host, port and token; its models
// are listed, and the one chosen loads as if it were local. Remote runs use the same grid, charts,
// compare mode and files as local ones.
Dialog {
    id: dialog
    objectName: "connectDialog"
    title: qsTr("Connect to engine")
    modal: true
    standardButtons: Dialog.Close
    width: 420
    anchors.centerIn: parent

    onOpened: {
        hostField.text = App.model.serverHost
        portField.value = App.model.serverPort
        tlsCheck.checked = App.model.serverTls
        certField.text = App.model.serverCertificate
    }
    Connections {
        target: App.model
        function onModelChanged() { if (App.model.loaded && App.model.remote && dialog.opened) dialog.close() }
    }

    ColumnLayout {
        anchors.fill: parent
        spacing: 6
        Label {
            text: qsTr("A dlmscope-server on a GPU machine. From another machine, tunnel it first: ssh -N -L 8765:127.0.0.1:8765 gpu-host, then connect to 127.0.0.1.")
            wrapMode: Text.Wrap; color: Theme.dim; font.pixelSize: Theme.small
            Layout.fillWidth: true
        }
        GridLayout {
            columns: 2
            Layout.fillWidth: true
            Label { text: qsTr("Host"); color: Theme.dim }
            TextField { id: hostField; objectName: "serverHost"; Layout.fillWidth: true; selectByMouse: true }
            Label { text: qsTr("Port"); color: Theme.dim }
            SpinBox {
                id: portField
                objectName: "serverPort"
                from: 1; to: 65535; editable: true
                Layout.fillWidth: true
                // A port is a number, not a quantity: no thousands separator.
                textFromValue: (value) => String(value)
                valueFromText: (text) => parseInt(text, 10)
            }
            Label { text: qsTr("Token"); color: Theme.dim }
            TextField {
                id: tokenField
                objectName: "serverToken"
                echoMode: TextInput.Password
                placeholderText: qsTr("only if the server has --token-file (not saved)")
                Layout.fillWidth: true
            }
            Item { width: 1; height: 1 }
            CheckBox { id: tlsCheck; objectName: "serverTls"; text: qsTr("TLS (wss://)") }
            // A server with its own (self-signed) certificate: trust that certificate, whatever
            // host name it carries. Empty: the system's certificate authorities decide.
            Label { text: qsTr("Certificate"); color: Theme.dim; enabled: tlsCheck.checked }
            RowLayout {
                Layout.fillWidth: true
                enabled: tlsCheck.checked
                TextField {
                    id: certField
                    objectName: "serverCertificate"
                    placeholderText: qsTr("the server's --tls-cert file, if self-signed")
                    selectByMouse: true
                    Layout.fillWidth: true
                }
                Button {
                    text: qsTr("Browse…")
                    onClicked: {
                        // Beside the certificate already chosen, if any.
                        const folder = certField.text.replace(/\/[^\/]*$/, "")
                        if (folder.startsWith("/")) certDialog.currentFolder = "file://" + folder
                        certDialog.open()
                    }
                }
            }
        }
        FileDialog {
            id: certDialog
            title: qsTr("The server's certificate (PEM)")
            nameFilters: [qsTr("PEM certificates (*.pem *.crt *.cert)"), qsTr("All files (*)")]
            onAccepted: certField.text = App.toLocalPath(selectedFile)
        }
        Button {
            objectName: "serverConnect"
            text: App.model.connecting ? qsTr("Connecting…") : qsTr("Connect")
            enabled: !App.model.connecting && hostField.text.trim() !== ""
            onClicked: App.model.connectServer(hostField.text, portField.value, tokenField.text, tlsCheck.checked, certField.text)
        }
        Label {
            objectName: "serverError"
            visible: App.model.serverError !== ""
            text: App.model.serverError
            textFormat: Text.PlainText  // names and messages as written ("<s>" is no markup)
            color: Theme.error; wrapMode: Text.Wrap
            Layout.fillWidth: true
        }
        RowLayout {
            visible: App.model.serverModels.length > 0
            Layout.fillWidth: true
            ComboBox {
                id: modelBox
                objectName: "serverModelBox"
                model: App.model.serverModels
                Layout.fillWidth: true
                // The list shows the server's names as written: an item's own label would render
                // "<b>" or "<img src=…>" in a hostile server's name as markup.
                delegate: ItemDelegate {
                    required property string modelData
                    required property int index
                    width: ListView.view ? ListView.view.width : implicitWidth
                    highlighted: modelBox.highlightedIndex === index
                    contentItem: Text {
                        objectName: "serverModelName"
                        text: modelData
                        textFormat: Text.PlainText
                        font: modelBox.font
                        color: highlighted ? palette.highlightedText : palette.text
                        elide: Text.ElideRight
                        verticalAlignment: Text.AlignVCenter
                    }
                }
            }
            Button {
                objectName: "serverOpen"
                text: App.model.loading ? qsTr("Opening…") : qsTr("Open")
                enabled: !App.model.loading && modelBox.currentText !== ""
                onClicked: App.model.loadFromServer(modelBox.currentText)
            }
        }
        Label {  // what the chosen model is, before it is opened
            objectName: "serverModelDetail"
            visible: text !== ""
            text: App.model.serverModelDetails[modelBox.currentIndex] || ""
            textFormat: Text.PlainText
            color: Theme.dim; font.pixelSize: Theme.small; wrapMode: Text.Wrap
            Layout.fillWidth: true
        }
    }
}
