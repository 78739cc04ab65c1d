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
        compare(slider.to, App.run.stepCount - 1)
        App.setViewStep(3)
        compare(slider.value, 3)
        compare(App.run.canvas.shownStep, 3)
        App.setViewStep(App.run.stepCount - 1)
        compare(slider.value, App.run.stepCount - 1)
    }
    function test_replayAdvances() {
        createTemporaryObject(comp, this)
        App.setViewStep(0)
        App.replaySpeed = 120
        App.startReplay()
        verify(App.replaying)
        tryVerify(() => App.run.viewStep >= 3, 3000)
        App.stopReplay()
        verify(!App.replaying)
        App.setViewStep(App.run.stepCount - 1)
    }
}
