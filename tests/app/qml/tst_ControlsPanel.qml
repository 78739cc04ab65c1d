import QtQuick
import QtTest
import Dlmscope

TestCase {
    name: "ControlsPanel"
    when: windowShown
    width: 340; height: 900
    Component { id: comp; ControlsPanel { width: 320; height: 900 } }

    function test_presetsAndSettings() {
        const panel = createTemporaryObject(comp, this)
        const box = findChild(panel, "presetBox")
        verify(box)
        compare(box.count, App.presets.length + 1)
        App.applyPreset(1)
        compare(App.presetIndex, 1)
        compare(box.currentIndex, 1)
        App.setSetting("steps", "17")
        compare(App.settings.steps, "17")
        App.setSetting("seed", "5")
        compare(App.settings.seed, "5")
        verify(App.parameters.length >= 10)
        App.resetSettings()
        compare(App.presetIndex, 0)
    }
    function test_backendSelector() {
        const panel = createTemporaryObject(comp, this)
        const box = findChild(panel, "backendBox")
        verify(box)
        compare(box.count, 3)
        compare(App.backendChoices.join(","), "auto,cpu,cuda")
        compare(App.backend, "auto")
        compare(box.currentValue, "auto")
        // The controller's choice shows in the box (no model loaded: nothing to move yet)...
        App.backend = "cuda"
        compare(box.currentValue, "cuda")
        compare(box.currentText, App.cudaBuilt ? "CUDA" : "CUDA (not in this build)")
        // ...and a choice made in the box reaches the controller.
        box.currentIndex = 1
        box.activated(1)
        compare(App.backend, "cpu")
        // An unknown name is refused with a message; the choice stays.
        App.backend = "gpu"
        compare(App.backend, "cpu")
        verify(App.errorString.indexOf("'gpu'") >= 0)
        App.clearError()
        // Without a model there is no active backend, hence no note.
        compare(App.backendName, "")
        verify(!findChild(panel, "backendNote").visible)
        App.backend = "auto"
    }
    function test_promptEdits() {
        const panel = createTemporaryObject(comp, this)
        const edit = findChild(panel, "promptEdit")
        compare(edit.text, App.prompt)
        edit.text = "What is 6 times 7?"
        compare(App.prompt, "What is 6 times 7?")
        verify(!App.canRun)  // no model loaded: Run is disabled
    }
}
