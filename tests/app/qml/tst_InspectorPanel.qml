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
        compare(insp.info.confidence.length, App.runs.run.viewStep + 1)
        verify(insp.info.revealStep >= 0)
        verify(insp.info.events.length >= 1)
        compare(insp.info.events[0].event, "unmask")
        verify(insp.info.current.candidates.length >= 1)
        waitForRendering(insp)
    }
    // In compare mode the title says whose position it is.
    function test_titleNamesTheRunInCompareMode() {
        const insp = createTemporaryObject(comp, this, {position: 7})
        compare(findChild(insp, "inspectorTitle").text, "Position 7")
        const b = createTemporaryObject(comp, this, {position: 7, run: App.runs.compareRun, side: "B"})
        compare(findChild(b, "inspectorTitle").text, "Position 7 of run B")
        compare(b.info.token, App.runs.compareRun.positionDetails(7).token)
        // ε is the inspected run's: none for a run that does not lock.
        b.epsilon = 0
        verify(!b.epsSeries.visible)
        b.epsilon = 1e-3
        verify(b.epsSeries.visible)
    }
    function test_klChartIsOnALabelledLogScale() {
        const insp = createTemporaryObject(comp, this, {position: 7})
        const axis = insp.klAxis
        verify(axis)
        compare(axis.labelFormat, "1e%.0f")   // labels 1e-9 ... 1e1
        const series = insp.klSeries
        const finite = insp.info.kl.filter(p => p.value !== undefined && p.value !== null && !isNaN(p.value))
        compare(series.count, finite.length)
        for (let i = 0; i < series.count; ++i) {
            const y = series.at(i).y
            verify(y >= axis.min && y <= axis.max, "log10 KL " + y + " is on the axis")
        }
        // The run locks by ε: its line is drawn and named; a run without one has neither.
        const chart = findChild(insp, "klChart")
        verify(insp.epsSeries.visible)
        verify(chart.title.indexOf("ε") > 0)
        insp.epsSeries.clear()
        verify(!insp.epsSeries.visible)
        compare(chart.title.indexOf("ε"), -1)
    }
    // The few events take their own height; the candidates' history over the steps takes the rest.
    function test_eventsTakeTheirHeightAndTheHistoryTheRest() {
        App.runs.setViewStep(App.runs.run.stepCount - 1)
        const insp = createTemporaryObject(comp, this, {position: 7})
        waitForRendering(insp)
        const events = findChild(insp, "eventList")
        const history = findChild(insp, "topkHistory")
        verify(events.count >= 1, "events: " + events.count)
        verify(events.height <= events.contentHeight + 1, events.height + " > " + events.contentHeight)
        verify(history.height > 150, "history " + history.height)
    }
    // In a window too short for all its parts (960 x 640) the panel scrolls: the candidates'
    // history keeps its height at the bottom instead of being drawn past the panel.
    function test_aShortPanelScrollsToEveryPart() {
        App.runs.setViewStep(App.runs.run.stepCount - 1)
        const insp = createTemporaryObject(comp, this, {position: 7, height: 420})
        waitForRendering(insp)
        const scroll = findChild(insp, "inspectorScroll")
        const history = findChild(insp, "topkHistory")
        verify(history.height >= 120, "history " + history.height)
        const bottom = history.mapToItem(scroll.contentItem, 0, history.height).y
        verify(scroll.contentHeight > scroll.height, scroll.contentHeight + " <= " + scroll.height)
        verify(bottom <= scroll.contentHeight + 1, bottom + " > " + scroll.contentHeight)
        // Tall enough, nothing scrolls.
        const tall = createTemporaryObject(comp, this, {position: 7})
        waitForRendering(tall)
        const tallScroll = findChild(tall, "inspectorScroll")
        verify(tallScroll.contentHeight <= tallScroll.height + 1, tallScroll.contentHeight + " > " + tallScroll.height)
    }
    // Steps are counted from 1, as on the timeline ("step 64 of 64", not "step 63").
    function test_stepsAreCountedFromOne() {
        const insp = createTemporaryObject(comp, this, {position: 7})
        App.runs.setViewStep(App.runs.run.stepCount - 1)
        compare(findChild(insp, "topkHeading").text, "Top-k at step " + App.runs.run.stepCount)
        const finite = insp.info.kl.filter(p => p.value !== undefined && p.value !== null && !isNaN(p.value))
        verify(finite.length > 0)
        compare(insp.klSeries.at(0).x, finite[0].step + 1)
    }
    // A locked row is not recomputed: its last computed candidates stay on show, with their step.
    function test_lockedPositionKeepsItsLastCandidates() {
        App.runs.setViewStep(App.runs.run.stepCount - 1)
        const insp = createTemporaryObject(comp, this, {position: 0})
        compare(insp.info.state, "locked")
        const lockStep = insp.info.lockStep  // as of the viewed step: scrubbing back changes it
        verify(lockStep >= 1)
        verify(insp.info.current.candidates.length >= 1)
        compare(insp.info.current.step, lockStep - 1)
        compare(findChild(insp, "topkHeading").text,
                "Top-k at step " + lockStep + " (not recomputed since: locked)")
        for (let i = 0; i < insp.info.topk.length; ++i)
            verify(insp.info.topk[i].candidates.length >= 1, "only computed steps are listed")
        App.runs.setViewStep(lockStep - 1)
        compare(findChild(insp, "topkHeading").text, "Top-k at step " + lockStep)
        App.runs.setViewStep(App.runs.run.stepCount - 1)
    }
    function test_followsScrubbing() {
        const insp = createTemporaryObject(comp, this, {position: 7})
        App.runs.setViewStep(2)
        compare(insp.info.confidence.length, 3)
        App.runs.setViewStep(App.runs.run.stepCount - 1)
    }
}
