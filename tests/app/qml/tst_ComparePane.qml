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

    // A click on B's grid says it was B's (the inspector then shows run B), and only the grid
    // clicked outlines the inspected cell.
    SignalSpy { id: clicks; signalName: "positionClicked" }
    Window { id: host; visible: true; width: 1200; height: 700 }
    function test_aClickOnBInspectsB() {
        const pane = createTemporaryObject(comp, host.contentItem)
        clicks.target = pane
        clicks.clear()
        App.runs.compareMode = true
        const gridA = findChild(findChild(pane, "gridA"), "denoiseGrid")
        const gridB = findChild(findChild(pane, "gridB"), "denoiseGrid")
        tryVerify(() => gridB.width > 0 && gridB.contentHeight > 0)
        waitForRendering(pane)
        const r = gridB.cellRect(3)
        mouseMove(gridB, 1, 1)  // the first move only enters the window
        mouseMove(gridB, r.x + r.width / 2, r.y + r.height / 2)
        mouseClick(gridB, r.x + r.width / 2, r.y + r.height / 2)
        compare(clicks.count, 1)
        compare(clicks.signalArguments[0][0], 3)
        compare(clicks.signalArguments[0][1], true)
        pane.selectedPosition = 3
        pane.selectedOnB = true
        compare(gridB.selectedPosition, 3)
        compare(gridA.selectedPosition, -1)
        App.runs.compareMode = false
    }

    // On a short window the answers scroll inside their box and the grids keep rows of cells.
    Component { id: shortComp; ComparePane { width: 700; height: 330 } }
    function test_aShortPaneKeepsTheGridsAndScrollsTheAnswers() {
        const pane = createTemporaryObject(shortComp, host.contentItem)
        let lines = []
        for (let i = 0; i < 14; ++i) lines.push("line " + i + " of the working")
        pane.summary = {agree: true, changedWords: 0, textA: lines.join("<br>"), textB: lines.join("<br>")}
        waitForRendering(pane)
        const box = findChild(pane, "compareBox")
        verify(box.y + box.height <= pane.height + 1, "the answers' box ends at " + (box.y + box.height))
        const answer = findChild(pane, "answerAScroll")
        verify(answer.contentHeight > answer.height + 20, "the answer does not scroll: " + answer.contentHeight + " in " + answer.height)
        const grid = findChild(findChild(pane, "gridA"), "gridScroll")
        verify(grid.height >= 2 * 22, "the grid shows " + grid.height + " px")
        verify(findChild(findChild(pane, "gridA"), "denoiseGrid").visible)  // shown, so the next line can fail
        verify(!findChild(findChild(pane, "gridA"), "answerScroll").visible)  // the box below has it
    }
    // A pane with room shows each card's answer too (two lines, then it scrolls).
    function test_aTallPaneShowsTheAnswerOnEachCard() {
        const pane = createTemporaryObject(comp, host.contentItem)
        waitForRendering(pane)
        for (const side of ["gridA", "gridB"])
            verify(findChild(findChild(pane, side), "answerScroll").visible, side)
    }

    // Before both runs end there is no diff: the answer is shown as the plain text it is (rich text
    // would join its lines and read "<" as markup).
    function test_anAnswerWithoutItsDiffIsPlainText() {
        const pane = createTemporaryObject(comp, this)
        pane.summary = {}
        const text = findChild(pane, "answerAScrollText")
        compare(text.textFormat, Text.PlainText)
        compare(text.text, App.runs.run.answerText)
        pane.summary = {agree: true, changedWords: 0, textA: "a<br>b", textB: "a<br>b"}
        compare(text.textFormat, Text.RichText)
        compare(text.text, "a<br>b")
    }

    // Where each side ran is said once, below the grids, and only when the two differ; the
    // captions keep their room for the strategy.
    function test_sourcesAreNamedOnceWhenTheyDiffer() {
        const pane = createTemporaryObject(comp, this)
        const a = findChild(pane, "gridA"), b = findChild(pane, "gridB")
        const sources = findChild(pane, "compareSources")
        App.runs.run.source = "tiny-mdlm (local)"
        App.runs.compareRun.source = "tiny-mdlm (local)"
        verify(!pane.twoSources)
        App.runs.compareRun.source = "tiny-mdlm on ws://gpu-box:8765"
        verify(pane.twoSources)
        verify(sources.text.indexOf("tiny-mdlm on ws://gpu-box:8765") >= 0, sources.text)
        verify(a.caption.indexOf("local") < 0 && b.caption.indexOf("gpu-box") < 0, a.caption + " | " + b.caption)
        App.runs.compareRun.source = "models <old> & new (local)"  // a folder's name, not markup
        verify(sources.text.indexOf("models &lt;old&gt; &amp; new (local)") >= 0, sources.text)
        App.runs.run.source = ""
        App.runs.compareRun.source = ""
    }

    // The box says what B changed against A; a run pair without that word (runs still going)
    // shows no line, and the same settings say so.
    function test_whatBChangedIsNamed() {
        const pane = createTemporaryObject(comp, host.contentItem)
        const row = findChild(pane, "settingChangesRow"), line = findChild(pane, "settingChanges")
        pane.summary = {agree: false, changedWords: 1, textA: "a", textB: "b"}
        verify(!row.visible)
        pane.summary = {agree: false, changedWords: 1, textA: "a", textB: "b", settingChanges: "temperature 0 → 0.7 · seed 0 → 3"}
        verify(row.visible)
        verify(line.text.indexOf("temperature 0 → 0.7 · seed 0 → 3") >= 0, line.text)
        pane.summary = {agree: true, changedWords: 0, textA: "a", textB: "a", settingChanges: ""}
        verify(line.text.indexOf("the same settings") >= 0, line.text)
        pane.summary = {agree: true, changedWords: 0, textA: "a", textB: "a", settingChanges: "guided.guider /m/<a&b> → /m/c"}
        compare(line.textFormat, Text.PlainText)  // a folder's name is shown as written
        verify(line.text.indexOf("/m/<a&b>") >= 0, line.text)
    }

    // Each run's cost against the baseline sampler's run, beside its ratio to dense steps.
    function test_costAgainstTheBaselineRunIsShown() {
        const pane = createTemporaryObject(comp, host.contentItem)
        pane.summary = {agree: true, changedWords: 0, textA: "a", textB: "a", flopsRatioA: 2.091, flopsRatioB: 1,
                        flopsToBaselineA: 0.0261, flopsToBaselineB: 1}
        compare(findChild(pane, "toBaseline").text, "0.026, 1.000")
    }
}
