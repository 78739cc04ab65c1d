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
    signal connectServer()

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
            Label {
                objectName: "modelName"
                text: App.model.loaded ? App.model.name : qsTr("none")
                textFormat: Text.PlainText  // names and messages as written ("<s>" is no markup)
                color: Theme.text; font.bold: true; elide: Text.ElideMiddle
                Layout.fillWidth: true
            }
            RowLayout {
                Layout.fillWidth: true
                Button { text: qsTr("Open…"); onClicked: panel.openModel(); implicitHeight: 26; Layout.fillWidth: true }
                Button {
                    Layout.fillWidth: true
                    objectName: "connectButton"
                    text: qsTr("Connect…")
                    implicitHeight: 26
                    onClicked: panel.connectServer()
                    ToolTip.text: qsTr("Connect to engine: decode on a dlmscope-server, watch here")
                    ToolTip.visible: hovered
                }
            }
            Label {
                text: App.model.summary
                textFormat: Text.PlainText
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
                        { value: "cuda", label: App.model.cudaBuilt ? qsTr("CUDA") : qsTr("CUDA (not in this build)") }
                    ]
                    currentIndex: Math.max(0, App.model.backendChoices.indexOf(App.model.backend))
                    // A server's model runs where its --backend put it.
                    enabled: !App.model.loading && !App.model.remote
                    onActivated: App.model.backend = currentValue
                }
            }
            Label {
                objectName: "backendLabel"
                visible: App.model.loaded
                text: qsTr("Running on the %1 backend").arg(App.model.backendName.toUpperCase())
                color: Theme.text; font.pixelSize: 10
                Layout.fillWidth: true
            }
            Label {
                objectName: "backendNote"
                visible: App.model.loaded && App.model.backendNote !== ""
                text: App.model.backendNote
                textFormat: Text.PlainText
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
                    model: App.config.examples.map(e => e.label).concat([qsTr("(your own prompt)")])
                    currentIndex: App.config.exampleIndex >= 0 ? App.config.exampleIndex : App.config.examples.length
                    onActivated: (i) => { if (i < App.config.examples.length) App.config.useExample(i) }
                }
            }
            Label {
                // A prompt typed or passed on the command line may be an example's without its
                // canvas: say so when the answer would not fit.
                readonly property var example: App.config.exampleIndex >= 0 ? App.config.examples[App.config.exampleIndex] : null
                readonly property int canvas: Number(App.config.settings.gen_length)
                readonly property bool tooShort: example !== null && canvas < example.genLength
                objectName: "knownAnswer"
                visible: example !== null
                text: example === null ? ""
                    : tooShort ? qsTr("Known answer: %1. Its worked answer needs a canvas of %2 tokens; this one has %3, so it may be cut off.")
                                 .arg(example.answer).arg(example.genLength).arg(canvas)
                    : qsTr("Known answer: %1 (canvas %2 tokens)").arg(example.answer).arg(example.genLength)
                color: tooShort ? Theme.warn : Theme.dim; font.pixelSize: 10
                wrapMode: Text.Wrap
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
                    text: App.config.prompt
                    wrapMode: TextEdit.Wrap
                    font.pixelSize: Theme.body
                    onTextChanged: if (text !== App.config.prompt) App.config.prompt = text
                    background: Rectangle { color: "#14171c"; radius: 4; border.color: Theme.border }
                }
            }
            CheckBox {
                objectName: "chatCheck"
                text: qsTr("Use the model's chat template")
                checked: App.config.chat
                enabled: !App.model.loaded || App.model.chatAvailable
                onToggled: App.config.chat = checked
                font.pixelSize: Theme.small
                ToolTip.visible: hovered && App.model.chatTemplateName !== ""
                ToolTip.text: App.model.chatTemplateName
            }
            Label {
                objectName: "chatTemplateName"
                visible: App.model.chatTemplateName !== ""
                text: qsTr("Template: %1").arg(App.model.chatTemplateName)
                textFormat: Text.PlainText
                color: Theme.dim; font.pixelSize: 10; wrapMode: Text.Wrap; elide: Text.ElideRight; maximumLineCount: 2
                Layout.fillWidth: true
            }
            // A template the engine does not render exactly is never guessed: say so where the
            // prompt is typed, since the prompt then goes in raw.
            Rectangle {
                objectName: "chatTemplateNote"
                visible: App.model.chatTemplateNote !== ""
                Layout.fillWidth: true
                implicitHeight: visible ? noteText.implicitHeight + 10 : 0
                color: "#33291a"; border.color: Theme.warn; radius: Theme.radius
                Label {
                    id: noteText
                    anchors.fill: parent; anchors.margins: 5
                    text: App.model.chatTemplateNote
                    textFormat: Text.PlainText
                    color: Theme.text; font.pixelSize: 10; wrapMode: Text.Wrap
                }
            }

            // The model's own decode defaults (its generation_config.json), and what of it is not used.
            Label {
                objectName: "modelDefaultsNote"
                visible: App.config.modelDefaultsNote !== ""
                Layout.fillWidth: true
                text: App.config.modelDefaultsNote
                textFormat: Text.PlainText
                color: Theme.dim; font.pixelSize: 10; wrapMode: Text.Wrap
            }

            Label { text: qsTr("Strategy preset"); color: Theme.dim; font.pixelSize: Theme.small }
            ComboBox {
                id: presetBox
                objectName: "presetBox"
                Layout.fillWidth: true
                model: App.config.presets.map(p => p.name).concat([qsTr("(custom)")])
                currentIndex: App.config.presetIndex >= 0 ? App.config.presetIndex : App.config.presets.length
                onActivated: (i) => { if (i < App.config.presets.length) App.config.applyPreset(i) }
            }
            Label {
                objectName: "presetDescription"
                text: App.config.presetIndex >= 0 ? App.config.presets[App.config.presetIndex].description
                      : App.config.presetDifferences.length > 0 && App.config.basePresetIndex >= 0
                        ? (App.config.presetDifferences.length === 1 ? qsTr("Custom: %1 differs from “%2”") : qsTr("Custom: %1 differ from “%2”")).arg(App.config.presetDifferences.join(", ")).arg(App.config.presets[App.config.basePresetIndex].name)
                        : qsTr("Settings edited by hand")
                color: Theme.dim; font.pixelSize: 10; wrapMode: Text.Wrap
                Layout.fillWidth: true
            }

            Label { text: qsTr("Settings"); color: Theme.dim; font.pixelSize: Theme.small; Layout.topMargin: 4 }
            Repeater {
                model: App.config.parameters
                delegate: ParameterControl {
                    required property var modelData
                    spec: modelData
                    Layout.fillWidth: true
                    onEdited: (key, value) => App.config.setSetting(key, value)
                }
            }
            RowLayout {
                Layout.fillWidth: true
                TextField {
                    id: extra
                    objectName: "extraSetting"
                    property string problem: ""
                    Layout.fillWidth: true
                    placeholderText: qsTr("namespace.param=value")
                    font.pixelSize: Theme.small
                    onTextChanged: problem = ""
                    onAccepted: {
                        // What cannot be set is kept in the field, with what is wrong, instead of
                        // vanishing (or, for an unknown key, being stored where no control clears it).
                        const i = text.indexOf("=")
                        if (i <= 0 || text.slice(i + 1).trim() === "") {
                            problem = qsTr("Write it as key=value, e.g. surelock.epsilon=1e-3")
                            return
                        }
                        const unknown = App.config.unknownKeyMessage(text.slice(0, i))
                        if (unknown !== "") {
                            problem = unknown
                            return
                        }
                        App.config.setSetting(text.slice(0, i).trim(), text.slice(i + 1).trim())
                        text = ""
                    }
                }
                Button { text: qsTr("Defaults"); onClicked: App.config.resetSettings(); implicitHeight: 26 }
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
                model: { App.config.issues; return App.config.generalIssues() }
                delegate: Label {
                    required property var modelData
                    Layout.fillWidth: true
                    text: (modelData.severity === "error" ? qsTr("Error: ") : qsTr("Warning: ")) + modelData.message
                    textFormat: Text.PlainText
                    color: modelData.severity === "error" ? Theme.error : Theme.warn
                    font.pixelSize: 10
                    wrapMode: Text.Wrap
                }
            }

            Label { text: qsTr("Replay speed: %1 steps/s").arg(App.runs.replaySpeed.toFixed(0)); color: Theme.dim; font.pixelSize: Theme.small; Layout.topMargin: 4 }
            Slider {
                Layout.fillWidth: true
                from: 1; to: 120
                value: App.runs.replaySpeed
                onMoved: App.runs.replaySpeed = value
            }

            Label { text: qsTr("Compare: run B preset"); color: Theme.dim; font.pixelSize: Theme.small; Layout.topMargin: 4 }
            ComboBox {
                Layout.fillWidth: true
                model: App.config.presets.map(p => p.name).concat([qsTr("(custom)")])
                currentIndex: App.config.comparePresetIndex >= 0 ? App.config.comparePresetIndex : App.config.presets.length
                onActivated: (i) => { if (i < App.config.presets.length) App.config.applyComparePreset(i) }
            }
            // Local against remote: B on the model the other engine still holds.
            CheckBox {
                objectName: "compareOnOtherModel"
                Layout.fillWidth: true
                visible: App.model.otherModel.length > 0
                text: qsTr("Run B on %1").arg(App.model.otherModelName)
                Component.onCompleted: contentItem.textFormat = Text.PlainText  // a server's model name, as written
                checked: App.runs.compareOnOtherModel
                onToggled: App.runs.compareOnOtherModel = checked
                ToolTip.visible: hovered
                ToolTip.text: qsTr("A runs on the loaded model (%1), B on %2: the same prompt, seed and settings, side by side")
                              .arg(App.model.name).arg(App.model.otherModelName)
            }
            Button {
                Layout.fillWidth: true
                text: qsTr("Compare A vs B (same prompt and seed)")
                enabled: App.canRun && !App.runs.running
                onClicked: App.runs.runCompare()
            }
        }
    }
}
