import QtQuick
import QtTest
import Dlmscope

TestCase {
    name: "Timeline"
    when: windowShown
    width: 800; height: 60
    Component { id: comp; Timeline { width: 800 } }

    function test_scrubberFollowsViewStep() {
        const bar = createTemporaryObject(comp, this)
        const slider = findChild(bar, "scrubber")
        verify(slider)
        compare(slider.to, App.runs.run.stepCount - 1)
        App.runs.setViewStep(3)
        compare(slider.value, 3)
        compare(App.runs.run.canvas.shownStep, 3)
        App.runs.setViewStep(App.runs.run.stepCount - 1)
        compare(slider.value, App.runs.run.stepCount - 1)
    }
    function test_replayAdvances() {
        createTemporaryObject(comp, this)
        App.runs.setViewStep(0)
        App.runs.replaySpeed = 120
        App.runs.startReplay()
        verify(App.runs.replaying)
        tryVerify(() => App.runs.run.viewStep >= 3, 3000)
        App.runs.stopReplay()
        verify(!App.runs.replaying)
        App.runs.setViewStep(App.runs.run.stepCount - 1)
    }
}
