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
    function test_promptEdits() {
        const panel = createTemporaryObject(comp, this)
        const edit = findChild(panel, "promptEdit")
        compare(edit.text, App.prompt)
        edit.text = "What is 6 times 7?"
        compare(App.prompt, "What is 6 times 7?")
        verify(!App.canRun)  // no model loaded: Run is disabled
    }
}
