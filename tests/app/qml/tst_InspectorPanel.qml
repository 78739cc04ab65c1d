import QtQuick
import QtTest
import Dlmscope

TestCase {
    name: "InspectorPanel"
    when: windowShown
    width: 460; height: 900
    Component { id: comp; InspectorPanel { width: 440; height: 900 } }

    function test_showsPositionHistory() {
        const insp = createTemporaryObject(comp, this, {position: 7})
        verify(insp)
        compare(insp.info.pos, 7)
        compare(insp.info.confidence.length, App.run.viewStep + 1)
        verify(insp.info.revealStep >= 0)
        verify(insp.info.events.length >= 1)
        compare(insp.info.events[0].event, "unmask")
        verify(insp.info.current.candidates.length >= 1)
        waitForRendering(insp)
    }
    function test_followsScrubbing() {
        const insp = createTemporaryObject(comp, this, {position: 7})
        App.setViewStep(2)
        compare(insp.info.confidence.length, 3)
        App.setViewStep(App.run.stepCount - 1)
    }
}
