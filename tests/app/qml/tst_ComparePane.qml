import QtQuick
import QtTest
import Dlmscope

TestCase {
    name: "ComparePane"
    when: windowShown
    width: 1200; height: 700
    Component { id: comp; ComparePane { width: 1200; height: 700 } }

    function test_summaryAndLockStep() {
        const pane = createTemporaryObject(comp, this)
        verify(pane)
        compare(pane.summary.agree, true)  // both synthetic runs end on the same text
        const label = findChild(pane, "agreement")
        compare(label.text, "agree")
        App.runs.compareMode = true
        App.runs.setViewStep(4)
        compare(App.runs.run.viewStep, 4)
        compare(App.runs.compareRun.viewStep, 4)  // grids in lock-step
        App.runs.setViewStep(App.runs.run.stepCount - 1)
        App.runs.compareMode = false
        waitForRendering(pane)
    }
}
