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
        compare(box.count, App.config.presets.length + 1)
        App.config.applyPreset(1)
        compare(App.config.presetIndex, 1)
        compare(box.currentIndex, 1)
        App.config.setSetting("steps", "17")
        compare(App.config.settings.steps, "17")
        App.config.setSetting("seed", "5")
        compare(App.config.settings.seed, "5")
        verify(App.config.parameters.length >= 10)
        App.config.resetSettings()
        compare(App.config.presetIndex, 0)
    }
    // The parameter field keeps a key no strategy declares, with the engine's word on it, rather
    // than storing a setting no control could clear; a declared one is set and the field emptied.
    function test_parameterFieldKeepsAnUnknownKey() {
        const panel = createTemporaryObject(comp, this)
        const field = findChild(panel, "extraSetting")
        const problem = findChild(panel, "extraSettingProblem")
        field.text = "surelock.epsilom=1e-3"
        field.accepted()
        compare(field.text, "surelock.epsilom=1e-3")
        verify(problem.text.indexOf("did you mean 'surelock.epsilon'?") >= 0, problem.text)
        verify(App.config.settings["surelock.epsilom"] === undefined)
        field.text = "surelock.epsilon=1e-3"
        field.accepted()
        compare(field.text, "")
        compare(App.config.settings["surelock.epsilon"], "1e-3")
        App.config.resetSettings()
    }
    // A preset sets what it names and resets the other strategy settings (it used to change only
    // the strategy key: "Dream top-k margin" then "FreeCache" kept the Dream sampler); an edit
    // turns the box to custom and names what differs.
    // Settings that no preset gave (an opened trace's) are described against the nearest preset,
    // not the last one applied.
    function test_customSettingsNameTheNearestPreset() {
        const panel = createTemporaryObject(comp, this)
        const names = App.config.presets.map(p => p.name)
        const random = names.indexOf("LLaDA random")
        verify(random >= 0)
        App.config.applyPreset(names.indexOf("SureLock"))
        for (const [k, v] of [["strategy", "baseline"], ["sampler", "llada"], ["remasking", "random"], ["temperature", "0.5"]])
            App.config.setSetting(k, v)
        compare(App.config.presetIndex, -1)
        compare(App.config.basePresetIndex, random)
        compare(Array.from(App.config.presetDifferences).join(","), "temperature")
        compare(findChild(panel, "presetDescription").text, "Custom: temperature differs from “LLaDA random”")
        App.config.resetSettings()
    }
    function test_presetsResetWhatTheyDoNotName() {
        const panel = createTemporaryObject(comp, this)
        const names = App.config.presets.map(p => p.name)
        const dream = names.indexOf("Dream top-k margin"), freecache = names.indexOf("FreeCache")
        verify(dream >= 0 && freecache >= 0)
        App.config.setSetting("gen_length", "48")
        App.config.applyPreset(dream)
        compare(App.config.settings.sampler, "dream")
        compare(App.config.settings.alg, "topk_margin")
        App.config.setSetting("remasking", "random")
        App.config.setSetting("surelock.epsilon", "1e-4")
        compare(App.config.presetIndex, -1)
        compare(App.config.basePresetIndex, dream)
        compare(Array.from(App.config.presetDifferences).sort().join(","), "remasking,surelock.epsilon")
        verify(findChild(panel, "presetDescription").text.indexOf("remasking") >= 0)
        App.config.applyPreset(freecache)
        compare(App.config.presetIndex, freecache)
        compare(App.config.settings.strategy, "freecache")
        compare(App.config.settings.sampler, "auto")
        compare(App.config.settings.alg, "entropy")
        compare(App.config.settings.remasking, "low_confidence")
        compare(App.config.settings["surelock.epsilon"], undefined)
        compare(App.config.settings.gen_length, "48")  // the task stays
        // Every setting and parameter of the engine's schema has a control.
        verify(App.config.parameters.some(p => p.key === "surelock.unlock.rho"))
        verify(App.config.parameters.some(p => p.key === "guided.eos_fill" && p.kind === "enum"))
        verify(App.config.parameters.some(p => p.key === "cover.block_length" && p.kind === "computed"))
        App.config.resetSettings()
    }
    function test_backendSelector() {
        const panel = createTemporaryObject(comp, this)
        const box = findChild(panel, "backendBox")
        verify(box)
        compare(box.count, 3)
        compare(App.model.backendChoices.join(","), "auto,cpu,cuda")
        compare(App.model.backend, "auto")
        compare(box.currentValue, "auto")
        // The controller's choice shows in the box (no model loaded: nothing to move yet)...
        App.model.backend = "cuda"
        compare(box.currentValue, "cuda")
        compare(box.currentText, App.model.cudaBuilt ? "CUDA" : "CUDA (not in this build)")
        // ...and a choice made in the box reaches the controller.
        box.currentIndex = 1
        box.activated(1)
        compare(App.model.backend, "cpu")
        // An unknown name is refused with a message; the choice stays.
        App.model.backend = "gpu"
        compare(App.model.backend, "cpu")
        verify(App.errorString.indexOf("'gpu'") >= 0)
        App.clearError()
        // Without a model there is no active backend, hence no note.
        compare(App.model.backendName, "")
        verify(!findChild(panel, "backendNote").visible)
        App.model.backend = "auto"
    }
    function test_promptEdits() {
        const panel = createTemporaryObject(comp, this)
        const edit = findChild(panel, "promptEdit")
        compare(edit.text, App.config.prompt)
        edit.text = "What is 6 times 7?"
        compare(App.config.prompt, "What is 6 times 7?")
        verify(!App.canRun)  // no model loaded: Run is disabled
    }
}
