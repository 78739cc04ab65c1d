import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import QtQuick.Dialogs
import Qt.labs.settings
import Dlmscope

ApplicationWindow {
    id: window
    objectName: "mainWindow"
    width: 1600
    height: 1000
    minimumWidth: 960
    minimumHeight: 640
    visible: true
    title: qsTr("dlmscope") + (App.model.loaded ? " — " + App.model.name : "")
    color: Theme.window

    palette.window: Theme.window
    palette.windowText: Theme.text
    palette.base: "#14171c"
    palette.alternateBase: Theme.panelRaised
    palette.text: Theme.text
    palette.button: Theme.panelRaised
    palette.buttonText: Theme.text
    palette.highlight: Theme.accent
    palette.highlightedText: "white"
    palette.mid: Theme.border
    palette.light: "#2c313b"
    palette.dark: "#0c0e11"
    palette.toolTipBase: Theme.panelRaised
    palette.toolTipText: Theme.text
    palette.placeholderText: Theme.dim

    property int inspectedPosition: -1
    // Compare mode: the position inspected is run B's (a cell of B's grid was clicked).
    property bool inspectedOnB: false
    readonly property bool inspectsB: inspectedOnB && App.runs.compareMode
    function openInspector(pos) { inspectedOnB = false; inspectedPosition = pos }

    // A geometry saved on a larger screen (or a monitor since unplugged) is pulled back onto
    // this one, so the window never opens out of reach.
    function fitToScreen() {
        const sw = Screen.desktopAvailableWidth, sh = Screen.desktopAvailableHeight
        if (sw <= 0 || sh <= 0) return
        width = Math.max(minimumWidth, Math.min(width, sw))
        height = Math.max(minimumHeight, Math.min(height, sh))
        x = Math.max(0, Math.min(x, sw - width))
        y = Math.max(0, Math.min(y, sh - height))
    }
    Component.onCompleted: {
        // The colours above apply to every state; a disabled control must look it. Set after
        // them, since setting a colour for all states overwrites the disabled one.
        palette.disabled.buttonText = Theme.disabledText
        palette.disabled.brightText = Theme.disabledText
        palette.disabled.windowText = Theme.disabledText
        palette.disabled.text = Theme.disabledText
        palette.disabled.button = Theme.disabledFill
        palette.disabled.dark = Theme.disabledFill
        Qt.callLater(() => {  // after Settings has restored the geometry
            if (App.startsAtDefaultSize) { width = 1600; height = 1000; x = 0; y = 0 }
            fitToScreen()
        })
    }

    Settings {
        category: "window"
        property alias x: window.x
        property alias y: window.y
        property alias width: window.width
        property alias height: window.height
        property alias leftWidth: controls.width
        property alias chartsWidth: charts.width
    }

    // The path a save dialog chose, or "" (with an error shown) when no file name was typed: the
    // dialog then returns just ".<suffix>", which would land in the working directory.
    function savePath(url, suffix) {
        const path = App.toLocalPath(url)
        const name = path.split("/").pop()
        if (name === "" || name === "." + suffix || !path.startsWith("/")) {
            App.reportError(qsTr("No file name was given; nothing was saved."))
            return ""
        }
        return path
    }

    FolderDialog {
        id: modelDialog
        objectName: "modelDialog"
        title: qsTr("Open a checkpoint folder (config.json + safetensors + tokenizer)")
        onAccepted: App.model.load(selectedFolder)
        // First shown in the folder that holds the loaded model, beside the other models there
        // (Qt's default is the working directory); later where it was left.
        property bool placed: false
        function show() {
            const around = App.model.modelsFolder()
            if (!placed && around.toString() !== "") currentFolder = around
            placed = true
            open()
        }
        // A checkpoint folder has files, not subfolders: once inside it, Qt's own dialog selects
        // nothing and greys out Open. The checkpoint one is in is the one meant.
        onCurrentFolderChanged: if (App.model.isCheckpointFolder(currentFolder)) selectedFolder = currentFolder
    }
    ConnectDialog { id: connectDialog }
    FileDialog {
        id: openTraceDialog
        objectName: "openTraceDialog"
        title: qsTr("Open a trace")
        nameFilters: [qsTr("dlmscope traces (*.ndjson *.jsonl)"), qsTr("All files (*)")]
        onAccepted: App.runs.openTrace(selectedFile)
    }
    // A name to start from: the run's model and strategy ("tiny-mdlm-surelock-unlock-on-grid.png"),
    // in the folder the dialog was last used in.
    function suggestFile(dialog, what, suffix) {
        const stem = (App.runs.run.title || "dlmscope").replace(/[^A-Za-z0-9._-]+/g, "-").replace(/^-+|-+$/g, "")
        dialog.selectedFile = dialog.currentFolder + "/" + stem + (what !== "" ? "-" + what : "") + "." + suffix
    }
    FileDialog {
        id: saveTraceDialog
        objectName: "saveTraceDialog"
        title: qsTr("Save the trace")
        acceptLabel: qsTr("Save")
        fileMode: FileDialog.SaveFile
        defaultSuffix: "ndjson"
        nameFilters: [qsTr("dlmscope traces (*.ndjson)")]
        onAccepted: { const path = window.savePath(selectedFile, defaultSuffix); if (path !== "") App.runs.saveTrace(path) }
    }
    AnimationDialog {
        id: animationDialog
        // Part of a run is named for its steps: "…-decode-steps-20-60.png".
        onChooseFile: (options) => {
            exportDialog.what = "animation"
            exportDialog.animationOptions = options
            window.suggestFile(exportDialog, options.from === undefined ? "decode" : "decode-steps-%1-%2".arg(options.from).arg(options.to), "png")
            exportDialog.open()
        }
    }
    FileDialog {
        id: exportDialog
        objectName: "exportDialog"
        property string what: "grid"
        property var animationOptions: ({})  // the animation dialog's choices
        fileMode: FileDialog.SaveFile
        acceptLabel: qsTr("Export")
        title: what === "csv" ? qsTr("Export per-step statistics")
             : what === "animation" ? qsTr("Export the decode as an animated PNG") : qsTr("Export PNG")
        defaultSuffix: what === "csv" ? "csv" : "png"
        nameFilters: what === "csv" ? [qsTr("CSV (*.csv)")] : [qsTr("PNG (*.png)")]
        onAccepted: {
            const path = window.savePath(selectedFile, defaultSuffix)
            if (path === "") return
            if (what === "csv") { App.runs.exportCsv(path); return }
            if (what === "charts") { charts.exportImage(path); return }
            if (what === "animation") { App.runs.exportAnimation(path, animationOptions); return }
            // In compare mode B's image goes beside A's (<name>-B.png), as traces and CSV do.
            const pathB = App.runs.comparePath(path)
            const save = (onB, file) => what === "grid" ? (onB ? comparePane.gridB : mainGrid).grid.saveImage(file)
                                                        : heatmaps.saveImage(onB, file)
            const failed = !save(false, path) ? path : pathB !== "" && !save(true, pathB) ? pathB : ""
            if (failed !== "") App.reportError(qsTr("Could not write %1").arg(failed))
            else if (pathB !== "") App.reportStatus(qsTr("Exported the %1 of A to %2 and B to %3").arg(what === "grid" ? qsTr("grids") : qsTr("heatmaps")).arg(path).arg(pathB))
            else App.reportStatus(qsTr("Exported the %1 to %2").arg(what === "grid" ? qsTr("grid") : qsTr("heatmap")).arg(path))
        }
    }

    Shortcut { sequence: "Ctrl+R"; onActivated: if (App.canRun && !App.runs.running) App.runs.runDecode() }
    Shortcut { sequence: "Space"; onActivated: App.runs.running ? (App.runs.paused ? App.runs.resume() : App.runs.pause()) : (App.runs.replaying ? App.runs.stopReplay() : App.runs.startReplay()) }
    Shortcut { sequence: "Escape"; onActivated: App.runs.running ? App.runs.stop() : (window.inspectedPosition = -1) }
    Shortcut { sequence: "Right"; onActivated: App.runs.stepOnce() }
    Shortcut { sequence: "Left"; onActivated: App.runs.setViewStep(App.runs.run.viewStep - 1) }

    header: ToolBar {
        objectName: "toolBar"
        background: Rectangle { color: Theme.panel; border.color: Theme.border }
        // Tooltips (one shared instance; attached here, since it needs an item) quote model folders,
        // server model names and generation_config values: plain text, so that a name with <b> or
        // <img src=…> is shown as written, not rendered (or fetched).
        Component.onCompleted: ToolTip.toolTip.contentItem.textFormat = Text.PlainText
        RowLayout {
            anchors.fill: parent
            anchors.leftMargin: 10
            anchors.rightMargin: 10
            spacing: 6
            Button { objectName: "modelButton"; text: qsTr("Model…"); onClicked: modelDialog.show() }
            ToolSeparator {}
            Button {
                objectName: "runButton"
                text: qsTr("▶ Run")
                enabled: App.canRun && !App.runs.running
                highlighted: true
                // In compare mode Run decodes the A/B pair again rather than leaving the mode.
                onClicked: App.runs.compareMode ? App.runs.runCompare() : App.runs.runDecode()
            }
            Button {
                objectName: "pauseButton"
                text: App.runs.paused ? qsTr("Resume") : qsTr("Pause")
                enabled: App.runs.running
                onClicked: App.runs.paused ? App.runs.resume() : App.runs.pause()
            }
            Button {
                objectName: "stepButton"
                text: qsTr("Step")
                // A running decode computes one more step; a finished run or trace shows the next one.
                enabled: App.runs.running || App.runs.run.viewStep < App.runs.run.stepCount - 1
                onClicked: App.runs.stepOnce()
                ToolTip.text: App.runs.running ? qsTr("Pause, and compute one step") : qsTr("Show the next recorded step")
                ToolTip.visible: hovered
            }
            Button { objectName: "stopButton"; text: qsTr("■ Stop"); enabled: App.runs.running; onClicked: App.runs.stop() }
            Button {
                text: qsTr("↻ Re-run")
                enabled: App.canRun && !App.runs.running
                onClicked: App.runs.rerun()
                ToolTip.text: qsTr("Run again with the same prompt and seed"); ToolTip.visible: hovered
            }
            ToolSeparator {}
            ToggleButton {
                objectName: "compareButton"
                text: qsTr("Compare")
                checked: App.runs.compareMode
                onToggled: App.runs.toggleCompare(checked)
                ToolTip.text: qsTr("Decode A (the settings) and B (the compare preset) side by side"); ToolTip.visible: hovered
            }
            ToolSeparator {}
            Button { objectName: "openTraceButton"; text: qsTr("Open trace…"); onClicked: openTraceDialog.open() }
            Button { objectName: "saveTraceButton"; text: qsTr("Save trace…"); enabled: App.runs.run.hasRun && !App.runs.running; onClicked: { window.suggestFile(saveTraceDialog, "", "ndjson"); saveTraceDialog.open() } }
            Button {
                objectName: "exportButton"
                text: qsTr("Export ▾")
                enabled: App.runs.run.stepCount > 0
                onClicked: exportMenu.popup()
                Menu {
                    id: exportMenu
                    MenuItem { objectName: "exportGridItem"; text: qsTr("Grid as PNG…"); onTriggered: { exportDialog.what = "grid"; window.suggestFile(exportDialog, "grid", "png"); exportDialog.open() } }
                    MenuItem { objectName: "exportHeatmapItem"; text: qsTr("Heatmap as PNG…"); onTriggered: { exportDialog.what = "heatmap"; window.suggestFile(exportDialog, heatmaps.heatmap.mode === "reveal" ? "reveal-order" : "kl", "png"); exportDialog.open() } }
                    MenuItem { objectName: "exportChartsItem"; text: qsTr("Charts as PNG…"); onTriggered: { exportDialog.what = "charts"; window.suggestFile(exportDialog, "charts", "png"); exportDialog.open() } }
                    MenuItem {
                        objectName: "exportAnimationItem"
                        text: App.runs.exportingAnimation ? qsTr("Decode as animation (writing…)") : qsTr("Decode as animation (APNG)…")
                        enabled: App.runs.run.stepCount > 0 && !App.runs.exportingAnimation
                        onTriggered: animationDialog.open()
                    }
                    MenuItem { objectName: "exportCsvItem"; text: qsTr("Per-step statistics as CSV…"); onTriggered: { exportDialog.what = "csv"; window.suggestFile(exportDialog, "steps", "csv"); exportDialog.open() } }
                }
            }
            Item { Layout.fillWidth: true }
            // Shown by running alone (an idle indicator draws nothing): one hidden by visible would
            // leave the row, and the toolbar would change height whenever a run starts or ends.
            BusyIndicator { running: App.model.loading || App.runs.running; implicitWidth: 26; implicitHeight: 26 }
        }
    }

    // The status line: what the app did last (loaded, saved, exported) and where the model runs.
    footer: Rectangle {
        implicitHeight: 26
        color: Theme.panel
        border.color: Theme.border
        RowLayout {
            anchors.fill: parent
            anchors.leftMargin: 10
            anchors.rightMargin: 10
            spacing: 8
            // The name lives here and in the title bar, leaving the toolbar's width to its buttons.
            Label { text: "dlmscope"; color: Theme.accent; font.pixelSize: Theme.small; font.bold: true }
            // Where the model runs; the tooltip says why when it is not where it was asked to.
            Label {
                objectName: "backendBadge"
                visible: App.model.loaded
                text: App.model.backendName.toUpperCase()
                color: App.model.backendNote !== "" && !App.model.remote ? Theme.warn : Theme.dim
                font.pixelSize: Theme.small
                font.bold: true
                leftPadding: 6; rightPadding: 6; topPadding: 2; bottomPadding: 2
                background: Rectangle { color: "transparent"; radius: 3; border.color: parent.color }
                HoverHandler { id: badgeHover }
                ToolTip.text: App.model.backendNote !== "" ? App.model.backendNote : qsTr("Compute backend (chosen in the Model section)")
                ToolTip.visible: badgeHover.hovered
            }
            // A server's model: where it runs, so a remote run is never taken for a local one.
            Label {
                objectName: "connectionBadge"
                visible: App.model.remote
                text: qsTr("on %1").arg(App.model.dir.replace(/\/[^\/]*$/, ""))
                textFormat: Text.PlainText  // names and messages as written ("<s>" is no markup)
                color: Theme.accent
                font.pixelSize: Theme.small
            }
            Label {
                objectName: "statusLabel"
                text: App.status
                textFormat: Text.PlainText
                color: Theme.dim
                font.pixelSize: Theme.small
                elide: Text.ElideRight
                Layout.fillWidth: true
            }
        }
    }

    ColumnLayout {
        anchors.fill: parent
        anchors.margins: Theme.spacing
        spacing: Theme.spacing

        ErrorBanner { id: banner; Layout.fillWidth: true }

        SplitView {
            Layout.fillWidth: true
            Layout.fillHeight: true
            orientation: Qt.Horizontal

            ControlsPanel {
                id: controls
                // Shares that follow the window, so a small screen keeps every column inside it.
                SplitView.preferredWidth: Math.max(240, Math.min(320, window.width * 0.24))
                SplitView.minimumWidth: 240
                onOpenModel: modelDialog.show()
                onConnectServer: connectDialog.open()
            }

            // The grid above, the heatmaps below, the boundary draggable: a short window can give the
            // grids their rows (two of them in compare mode), a tall one the heatmap its steps.
            SplitView {
                objectName: "centreSplit"
                SplitView.fillWidth: true
                SplitView.minimumWidth: 360
                orientation: Qt.Vertical
                ColumnLayout {
                    SplitView.fillHeight: true
                    SplitView.minimumHeight: 160
                    spacing: Theme.spacing
                    GridPane {
                        id: mainGrid
                        visible: !App.runs.compareMode
                        Layout.fillWidth: true
                        Layout.fillHeight: true
                        run: App.runs.run
                        selectedPosition: window.inspectedPosition
                        onPositionClicked: (p) => window.openInspector(p)
                    }
                    ComparePane {
                        id: comparePane
                        visible: App.runs.compareMode
                        Layout.fillWidth: true
                        Layout.fillHeight: true
                        selectedPosition: window.inspectedPosition
                        selectedOnB: window.inspectsB
                        onPositionClicked: (p, onB) => { window.inspectedOnB = onB; window.inspectedPosition = p }
                    }
                    Legend { Layout.fillWidth: true }
                    Timeline { Layout.fillWidth: true }
                }
                HeatmapPanel {
                    id: heatmaps
                    objectName: "heatmapPanel"
                    // Compare mode has two grid cards to fit above: the map starts smaller there.
                    SplitView.preferredHeight: App.runs.compareMode ? Math.max(120, window.height * 0.18)
                                                                    : Math.max(180, window.height * 0.25)
                    SplitView.minimumHeight: 100
                }
            }

            ChartsPanel {
                id: charts
                objectName: "chartsPanel"
                SplitView.preferredWidth: Math.max(320, Math.min(560, window.width * 0.33))
                SplitView.minimumWidth: 320
                run: App.runs.run
                runB: App.runs.compareMode ? App.runs.compareRun : null
            }
        }
    }

    InspectorPanel {
        visible: window.inspectedPosition >= 0
        position: window.inspectedPosition
        run: window.inspectsB ? App.runs.compareRun : App.runs.run
        side: App.runs.compareMode ? (window.inspectsB ? "B" : "A") : ""
        epsilon: window.inspectsB ? App.runs.compareEpsilon : App.runs.epsilon
        width: 440
        anchors.right: parent.right
        anchors.top: parent.top
        anchors.bottom: parent.bottom
        anchors.margins: Theme.spacing
        // Below the error banner, so its Dismiss stays in reach.
        anchors.topMargin: banner.visible ? banner.height + 2 * Theme.spacing : Theme.spacing
        z: 20
        onCloseRequested: window.inspectedPosition = -1
    }

    // Loading a model: progress and Cancel (the app keeps the previous model if cancelled).
    Rectangle {
        anchors.fill: parent
        visible: App.model.loading
        color: "#a0000000"
        z: 30
        MouseArea { anchors.fill: parent }
        Rectangle {
            anchors.centerIn: parent
            width: 420; height: 150
            radius: Theme.radius
            color: Theme.panelRaised
            border.color: Theme.border
            ColumnLayout {
                anchors.fill: parent
                anchors.margins: 16
                Label {
                    text: (App.model.switchingBackend ? qsTr("Moving %1…") : qsTr("Opening %1…")).arg(App.model.loadingWhat)
                    textFormat: Text.PlainText
                    color: Theme.text; font.pixelSize: Theme.title
                    elide: Text.ElideRight; Layout.fillWidth: true
                }
                ProgressBar { indeterminate: true; Layout.fillWidth: true }
                Label {
                    text: App.model.switchingBackend ? qsTr("Making the backend (the runs shown are kept)")
                                               : qsTr("Reading config, weights (memory-mapped) and tokenizer")
                    color: Theme.dim; font.pixelSize: Theme.small
                }
                // A backend switch has already let go of the old backend: it cannot be undone halfway.
                Button { text: qsTr("Cancel"); visible: !App.model.switchingBackend; Layout.alignment: Qt.AlignRight; onClicked: App.model.cancelLoad() }
            }
        }
    }
}
