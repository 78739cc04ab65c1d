import QtQuick
import QtQuick.Window
import QtTest
import Dlmscope

TestCase {
    name: "ParameterControl"
    when: windowShown
    width: 340; height: 200
    Window { id: host; visible: true; width: 340; height: 200 }
    Component { id: comp; ParameterControl { width: 320 } }

    function spec(key) {
        for (let i = 0; i < App.config.parameters.length; ++i)
            if (App.config.parameters[i].key === key) return App.config.parameters[i]
        return null
    }

    // The guider model is a free-text folder path; its control edits the setting as typed.
    function test_textKindEditsTheSetting() {
        const s = spec("guided.guider")
        verify(s, "the guided strategy exposes its guider model")
        compare(s.kind, "text")
        App.config.setSetting("strategy", "guided")
        const c = createTemporaryObject(comp, host.contentItem, {spec: s})
        verify(c.visible)
        const editedSpy = signalSpy.createObject(this, {target: c, signalName: "edited"})
        const loader = c.children[0].children[1]
        verify(loader.item)
        loader.item.text = "/models/Qwen2.5-0.5B-Instruct"
        loader.item.editingFinished()
        compare(editedSpy.count, 1)
        compare(editedSpy.signalArguments[0][0], "guided.guider")
        compare(editedSpy.signalArguments[0][1], "/models/Qwen2.5-0.5B-Instruct")
        App.config.resetSettings()
    }

    // Strategy parameters show only while their strategy is chosen.
    function test_strategyParametersFollowTheStrategy() {
        const c = createTemporaryObject(comp, host.contentItem, {spec: spec("cover.tau_draft")})
        App.config.setSetting("strategy", "cover")
        verify(c.visible)
        App.config.setSetting("strategy", "baseline")
        verify(!c.visible)
        App.config.resetSettings()
    }

    // A parameter read only under another setting's value is dimmed while that does not hold,
    // and its tooltip says why; it stays editable.
    function test_aParameterTheRunDoesNotReadIsDimmed() {
        App.config.setSetting("strategy", "surelock")
        const c = createTemporaryObject(comp, host.contentItem, {spec: spec("surelock.unlock.period")})
        verify(c.visible)
        compare(c.unread, "read only while surelock.unlock=on")
        verify(c.opacity < 1)
        verify(c.enabled)
        App.config.setSetting("surelock.unlock", "on")
        compare(c.unread, "")
        compare(c.opacity, 1)
        const plain = createTemporaryObject(comp, host.contentItem, {spec: spec("surelock.epsilon")})
        compare(plain.unread, "")
        App.config.resetSettings()
    }

    // A number outside the setting's range is still passed on (the engine says what is wrong), so
    // the field never shows a value the run does not use; text that is no number is refused.
    function test_realFieldPassesOutOfRangeNumbersOn() {
        const c = createTemporaryObject(comp, host.contentItem, {spec: spec("top_p")})
        const loader = c.children[0].children[1]
        verify(loader.item)
        for (const t of ["2.5", "-1", "1e-3", "0.9"]) {
            loader.item.text = t
            verify(loader.item.acceptableInput, t)
        }
        loader.item.text = "abc"
        verify(!loader.item.acceptableInput)
        App.config.resetSettings()
    }

    Component { id: signalSpy; SignalSpy {} }
}
