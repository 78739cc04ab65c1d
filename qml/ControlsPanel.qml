import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Dlmscope

// Prompt, strategy presets and every decode setting the engine knows, validated live.
Rectangle {
    id: panel
    color: Theme.panel
    radius: Theme.radius
    border.color: Theme.border
    signal openModel()

    ScrollView {
        id: scroll
        anchors.fill: parent
        anchors.margins: Theme.spacing
        contentWidth: availableWidth
        clip: true
        ColumnLayout {
            width: scroll.availableWidth
            spacing: 6

            Label { text: qsTr("Model"); color: Theme.dim; font.pixelSize: Theme.small }
            RowLayout {
                Layout.fillWidth: true
                Label {
                    text: App.modelLoaded ? App.modelName : qsTr("none")
                    color: Theme.text; font.bold: true; elide: Text.ElideMiddle
                    Layout.fillWidth: true
                }
                Button { text: qsTr("Open…"); onClicked: panel.openModel(); implicitHeight: 26 }
            }
            Label {
                text: App.modelSummary
                visible: text !== ""
                color: Theme.dim; font.pixelSize: 10; wrapMode: Text.Wrap
                Layout.fillWidth: true
            }

            // The compute backend: changing it moves the loaded model (the runs shown are kept).
            RowLayout {
                Layout.fillWidth: true
                Label { text: qsTr("Backend"); color: Theme.dim; font.pixelSize: Theme.small }
                ComboBox {
                    id: backendBox
                    objectName: "backendBox"
                    Layout.fillWidth: true
                    implicitHeight: 28
                    textRole: "label"
                    valueRole: "value"
                    model: [
                        { value: "auto", label: qsTr("Auto (CUDA if usable)") },
                        { value: "cpu", label: qsTr("CPU") },
                        { value: "cuda", label: App.cudaBuilt ? qsTr("CUDA") : qsTr("CUDA (not in this build)") }
                    ]
                    currentIndex: Math.max(0, App.backendChoices.indexOf(App.backend))
                    enabled: !App.loading
                    onActivated: App.backend = currentValue
                }
            }
            Label {
                objectName: "backendLabel"
                visible: App.modelLoaded
                text: qsTr("Running on the %1 backend").arg(App.backendName.toUpperCase())
                color: Theme.text; font.pixelSize: 10
                Layout.fillWidth: true
            }
            Label {
                objectName: "backendNote"
                visible: App.modelLoaded && App.backendNote !== ""
                text: App.backendNote
                color: Theme.warn; font.pixelSize: 10; wrapMode: Text.Wrap
                Layout.fillWidth: true
            }

            // Worked examples with known answers: the run then says whether its answer is right.
            RowLayout {
                Layout.fillWidth: true
                Label { text: qsTr("Example"); color: Theme.dim; font.pixelSize: Theme.small }
                ComboBox {
                    id: exampleBox
                    objectName: "exampleBox"
                    Layout.fillWidth: true
                    implicitHeight: 28
                    model: App.examples.map(e => e.label).concat([qsTr("(your own prompt)")])
                    currentIndex: App.exampleIndex >= 0 ? App.exampleIndex : App.examples.length
                    onActivated: (i) => { if (i < App.examples.length) App.useExample(i) }
                }
            }
            Label {
                objectName: "knownAnswer"
                visible: App.exampleIndex >= 0
                text: App.exampleIndex >= 0 ? qsTr("Known answer: %1 (canvas %2 tokens)")
                                              .arg(App.examples[App.exampleIndex].answer)
                                              .arg(App.examples[App.exampleIndex].genLength) : ""
                color: Theme.dim; font.pixelSize: 10
                Layout.fillWidth: true
            }
            Label { text: qsTr("Prompt"); color: Theme.dim; font.pixelSize: Theme.small }
            // Grows with the prompt up to twelve lines, then scrolls on its own (the wheel over it
            // moves the prompt, not the panel).
            ScrollView {
                id: promptScroll
                objectName: "promptScroll"
                Layout.fillWidth: true
                contentWidth: availableWidth
                Layout.preferredHeight: Math.min(Math.max(84, promptEdit.implicitHeight), 12 * promptEdit.font.pixelSize * 1.4 + 16)
                TextArea {
                    id: promptEdit
                    objectName: "promptEdit"
                    text: App.prompt
                    wrapMode: TextEdit.Wrap
                    font.pixelSize: Theme.body
                    onTextChanged: if (text !== App.prompt) App.prompt = text
                    background: Rectangle { color: "#14171c"; radius: 4; border.color: Theme.border }
                }
            }
            CheckBox {
                objectName: "chatCheck"
                text: qsTr("Use the model's chat template")
                checked: App.chat
                enabled: !App.modelLoaded || App.chatAvailable
                onToggled: App.chat = checked
                font.pixelSize: Theme.small
                ToolTip.visible: hovered && App.chatTemplateName !== ""
                ToolTip.text: App.chatTemplateName
            }
            Label {
                objectName: "chatTemplateName"
                visible: App.chatTemplateName !== ""
                text: qsTr("Template: %1").arg(App.chatTemplateName)
                color: Theme.dim; font.pixelSize: 10; wrapMode: Text.Wrap; elide: Text.ElideRight; maximumLineCount: 2
                Layout.fillWidth: true
            }
            // A template the engine does not render exactly is never guessed: say so where the
            // prompt is typed, since the prompt then goes in raw.
            Rectangle {
                objectName: "chatTemplateNote"
                visible: App.chatTemplateNote !== ""
                Layout.fillWidth: true
                implicitHeight: visible ? noteText.implicitHeight + 10 : 0
                color: "#33291a"; border.color: Theme.warn; radius: Theme.radius
                Label {
                    id: noteText
                    anchors.fill: parent; anchors.margins: 5
                    text: App.chatTemplateNote
                    color: Theme.text; font.pixelSize: 10; wrapMode: Text.Wrap
                }
            }

            // The model's own decode defaults (its generation_config.json), and what of it is not used.
            Label {
                objectName: "modelDefaultsNote"
                visible: App.modelDefaultsNote !== ""
                Layout.fillWidth: true
                text: App.modelDefaultsNote
                color: Theme.dim; font.pixelSize: 10; wrapMode: Text.Wrap
            }

            Label { text: qsTr("Strategy preset"); color: Theme.dim; font.pixelSize: Theme.small }
            ComboBox {
                id: presetBox
                objectName: "presetBox"
                Layout.fillWidth: true
                model: App.presets.map(p => p.name).concat([qsTr("(custom)")])
                currentIndex: App.presetIndex >= 0 ? App.presetIndex : App.presets.length
                onActivated: (i) => { if (i < App.presets.length) App.applyPreset(i) }
            }
            Label {
                objectName: "presetDescription"
                text: App.presetIndex >= 0 ? App.presets[App.presetIndex].description
                      : App.presetDifferences.length > 0 && App.basePresetIndex >= 0
                        ? qsTr("Custom: %1 differ from “%2”").arg(App.presetDifferences.join(", ")).arg(App.presets[App.basePresetIndex].name)
                        : qsTr("Settings edited by hand")
                color: Theme.dim; font.pixelSize: 10; wrapMode: Text.Wrap
                Layout.fillWidth: true
            }

            Label { text: qsTr("Settings"); color: Theme.dim; font.pixelSize: Theme.small; Layout.topMargin: 4 }
            Repeater {
                model: App.parameters
                delegate: ParameterControl {
                    required property var modelData
                    spec: modelData
                    Layout.fillWidth: true
                    onEdited: (key, value) => App.setSetting(key, value)
                }
            }
            RowLayout {
                Layout.fillWidth: true
                TextField {
                    id: extra
                    objectName: "extraSetting"
                    property string problem: ""
                    Layout.fillWidth: true
                    placeholderText: qsTr("strategy.param=value")
                    font.pixelSize: Theme.small
                    onTextChanged: problem = ""
                    onAccepted: {
                        const i = text.indexOf("=")
                        if (i > 0 && text.slice(i + 1).trim() !== "") {
                            App.setSetting(text.slice(0, i).trim(), text.slice(i + 1).trim())
                            text = ""
                        } else {
                            // Kept in the field, with what is wrong, instead of vanishing.
                            problem = qsTr("Write it as key=value, e.g. surelock.epsilon=1e-3")
                        }
                    }
                }
                Button { text: qsTr("Defaults"); onClicked: App.resetSettings(); implicitHeight: 26 }
            }
            Label {
                objectName: "extraSettingProblem"
                visible: extra.problem !== ""
                text: extra.problem
                color: Theme.error; font.pixelSize: 10; wrapMode: Text.Wrap
                Layout.fillWidth: true
            }

            // Problems that name no single setting (or the whole combination); each setting's own
            // problem is shown once, under its control.
            Repeater {
                model: { App.issues; return App.generalIssues() }
                delegate: Label {
                    required property var modelData
                    Layout.fillWidth: true
                    text: (modelData.severity === "error" ? qsTr("Error: ") : qsTr("Warning: ")) + modelData.message
                    color: modelData.severity === "error" ? Theme.error : Theme.warn
                    font.pixelSize: 10
                    wrapMode: Text.Wrap
                }
            }

            Label { text: qsTr("Replay speed: %1 steps/s").arg(App.replaySpeed.toFixed(0)); color: Theme.dim; font.pixelSize: Theme.small; Layout.topMargin: 4 }
            Slider {
                Layout.fillWidth: true
                from: 1; to: 120
                value: App.replaySpeed
                onMoved: App.replaySpeed = value
            }

            Label { text: qsTr("Compare: run B preset"); color: Theme.dim; font.pixelSize: Theme.small; Layout.topMargin: 4 }
            ComboBox {
                Layout.fillWidth: true
                model: App.presets.map(p => p.name).concat([qsTr("(custom)")])
                currentIndex: App.comparePresetIndex >= 0 ? App.comparePresetIndex : App.presets.length
                onActivated: (i) => { if (i < App.presets.length) App.applyComparePreset(i) }
            }
            Button {
                Layout.fillWidth: true
                text: qsTr("Compare A vs B (same prompt and seed)")
                enabled: App.canRun && !App.running
                onClicked: App.runCompare()
            }
        }
    }
}
