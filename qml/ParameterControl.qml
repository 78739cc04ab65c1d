import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Dlmscope

// One decode setting: the control for its kind and, underneath, the engine's validation
// message for it (shown before Run).
ColumnLayout {
    id: control
    required property var spec            // {key, label, kind, min, max, help, options, default, placeholder}
    property var settings: App.config.settings
    // A strategy parameter not set shows its schema default.
    property string value: settings[spec.key] !== undefined ? String(settings[spec.key])
                           : (spec["default"] !== undefined ? spec["default"] : "")
    property string issue: { App.config.issues; return App.config.issueFor(spec.key) }
    property string issueSeverity: { App.config.issues; return App.config.issueSeverityFor(spec.key) }
    // Why the run would not read this setting now ("read only while surelock.unlock=on"): the
    // control stays editable, dimmed, and says so.
    property string unread: { settings; return App.config.unreadReason(spec.key) }
    signal edited(string key, string value)
    spacing: 2
    // Strategy parameters show only while their strategy is chosen.
    visible: !spec["for"] || new RegExp(spec["for"]).test(String(settings.strategy))
    opacity: unread !== "" ? 0.45 : 1

    RowLayout {
        Layout.fillWidth: true
        Label {
            text: control.spec.label
            color: Theme.dim
            font.pixelSize: Theme.small
            Layout.preferredWidth: 108
            // A model's generation_config.json may move the default: said after the schema's.
            ToolTip.text: (App.config.modelDefaults[control.spec.key] !== undefined
                           ? control.spec.help + " " + qsTr("This model's default: %1.").arg(App.config.modelDefaults[control.spec.key])
                           : control.spec.help)
                          + (control.unread !== "" ? " " + qsTr("Not read now: %1.").arg(control.unread) : "")
            ToolTip.visible: hover.hovered
            HoverHandler { id: hover }
        }
        Loader {
            Layout.fillWidth: true
            sourceComponent: control.spec.kind === "enum" ? enumEditor
                           : control.spec.kind === "logreal" ? logEditor
                           : control.spec.kind === "int" ? intEditor
                           : control.spec.kind === "text" || control.spec.kind === "computed" ? textEditor : realEditor
        }
    }
    Label {
        objectName: "issueLabel"
        visible: control.issue !== ""
        text: (control.issueSeverity === "error" ? qsTr("Error: ") : qsTr("Warning: ")) + control.issue
        color: control.issueSeverity === "error" ? Theme.error : Theme.warn
        font.pixelSize: 10
        wrapMode: Text.Wrap
        Layout.fillWidth: true
    }

    Component {
        id: enumEditor
        ComboBox {
            model: control.spec.options
            currentIndex: Math.max(0, control.spec.options.indexOf(control.value))
            onActivated: (i) => control.edited(control.spec.key, control.spec.options[i])
            font.pixelSize: Theme.small
            implicitHeight: 26
        }
    }
    Component {
        id: intEditor
        SpinBox {
            from: control.spec.min
            to: control.spec.max
            editable: true
            value: parseInt(control.value) || 0
            onValueModified: control.edited(control.spec.key, String(value))
            font.pixelSize: Theme.small
            implicitHeight: 26
        }
    }
    Component {
        id: realEditor
        TextField {
            text: control.value
            // Any number is passed on, in range or not: the engine's validation then says what is
            // wrong under the field. A range here made out-of-range text stay shown but unused.
            validator: RegularExpressionValidator { regularExpression: /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/ }
            onEditingFinished: control.edited(control.spec.key, text.trim())
            font.pixelSize: Theme.small
            implicitHeight: 26
        }
    }
    Component {
        id: textEditor
        TextField {
            text: control.value
            // Empty = the computed default, which the placeholder names.
            placeholderText: control.spec.placeholder ? qsTr("auto: %1").arg(control.spec.placeholder) : control.spec.help
            onEditingFinished: control.edited(control.spec.key, text)
            font.pixelSize: Theme.small
            implicitHeight: 26
        }
    }
    Component {
        id: logEditor
        RowLayout {
            Slider {
                id: slider
                Layout.fillWidth: true
                from: Math.log10(control.spec.min)
                to: Math.log10(control.spec.max)
                value: control.value !== "" ? Math.log10(parseFloat(control.value)) : (from + to) / 2
                onMoved: control.edited(control.spec.key, Math.pow(10, value).toExponential(1))
            }
            Label {
                text: control.value !== "" ? parseFloat(control.value).toExponential(1) : "—"
                color: Theme.text; font.family: Theme.mono; font.pixelSize: Theme.small
            }
        }
    }
}
