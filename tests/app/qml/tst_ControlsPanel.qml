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
    // A preset sets what it names and resets the other strategy settings (it used to change only
    // the strategy key: "Dream top-k margin" then "freecache" kept the Dream sampler); an edit
    // turns the box to custom and names what differs.
    function test_presetsResetWhatTheyDoNotName() {
        const panel = createTemporaryObject(comp, this)
        const names = App.presets.map(p => p.name)
        const dream = names.indexOf("Dream top-k margin"), freecache = names.indexOf("freecache")
        verify(dream >= 0 && freecache >= 0)
        App.setSetting("gen_length", "48")
        App.applyPreset(dream)
        compare(App.settings.sampler, "dream")
        compare(App.settings.alg, "topk_margin")
        App.setSetting("remasking", "random")
        App.setSetting("surelock.epsilon", "1e-4")
        compare(App.presetIndex, -1)
        compare(App.basePresetIndex, dream)
        compare(Array.from(App.presetDifferences).sort().join(","), "remasking,surelock.epsilon")
        verify(findChild(panel, "presetDescription").text.indexOf("remasking") >= 0)
        App.applyPreset(freecache)
        compare(App.presetIndex, freecache)
        compare(App.settings.strategy, "freecache")
        compare(App.settings.sampler, "auto")
        compare(App.settings.alg, "entropy")
        compare(App.settings.remasking, "low_confidence")
        compare(App.settings["surelock.epsilon"], undefined)
        compare(App.settings.gen_length, "48")  // the task stays
        // Every setting and parameter of the engine's schema has a control.
        verify(App.parameters.some(p => p.key === "surelock.unlock.rho"))
        verify(App.parameters.some(p => p.key === "guided.eos_fill" && p.kind === "enum"))
        verify(App.parameters.some(p => p.key === "cover.block_length" && p.kind === "computed"))
        App.resetSettings()
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
