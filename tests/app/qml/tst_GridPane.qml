import QtQuick
import QtTest
import Dlmscope

TestCase {
    name: "GridPane"
    when: windowShown
    Window { id: host; visible: true; width: 900; height: 600 }
    width: 900; height: 600
    Component { id: comp; GridPane { width: 900; height: 600; run: App.runs.run } }
    SignalSpy { id: clicks; signalName: "positionClicked" }

    function test_gridShowsRunAndReportsClicks() {
        const pane = createTemporaryObject(comp, host.contentItem)
        verify(pane)
        clicks.target = pane
        const grid = findChild(pane, "denoiseGrid")
        verify(grid)
        tryVerify(() => grid.width > 0 && grid.contentHeight > 0)
        compare(grid.canvas.rowCount(), 96)
        waitForRendering(pane)
        const r = grid.cellRect(5)
        mouseMove(grid, 1, 1)  // the first move only enters the window
        mouseMove(grid, r.x + r.width / 2, r.y + r.height / 2)
        tryCompare(grid, "hoveredPosition", 5)
        mouseClick(grid, r.x + r.width / 2, r.y + r.height / 2)
        compare(clicks.count, 1)
        compare(clicks.signalArguments[0][0], 5)
        compare(grid.selectedPosition, 5)
    }
    // Before its first run the pane says what fills it; a compare pane's captions say that instead.
    function test_anEmptyPaneSaysHowToFillIt() {
        const pane = createTemporaryObject(comp, host.contentItem, {run: null})
        const hint = findChild(pane, "emptyGridText")
        verify(hint.visible)
        verify(hint.text.indexOf("Ctrl+R") >= 0, hint.text)
        const inside = hint.mapToItem(pane, 0, 0)
        verify(inside.x >= 0 && inside.x + hint.width <= pane.width && inside.y > 0 && inside.y + hint.height < pane.height)
        pane.run = App.runs.run
        verify(!hint.visible)
        const compared = createTemporaryObject(comp, host.contentItem, {run: null, emptyText: ""})
        verify(!findChild(compared, "emptyGridText").visible)
    }
    // A compare pane is narrow and its caption long: the step label keeps its place at the right
    // edge, inside the pane, and the caption elides before it, never under it; also when the
    // caption grows after the first layout (a compare run's title arrives with its first step).
    function test_stepLabelNeverOverlapsALongCaption() {
        // As in compare mode: the pane is laid out before its run has a step, then the run arrives.
        const pane = createTemporaryObject(comp, host.contentItem, {
            width: 320, run: null, caption: "B · fast-dllm · tiny-mdlm (local) with a caption far too long for the pane" })
        const title = findChild(pane, "paneTitle")
        const step = findChild(pane, "paneStep")
        waitForRendering(pane)
        pane.run = App.runs.run
        tryVerify(() => step.text !== "" && step.width > 0)
        waitForRendering(pane)
        const titleRight = title.mapToItem(pane, title.width, 0).x
        const stepLeft = step.mapToItem(pane, 0, 0).x
        const stepRight = step.mapToItem(pane, step.width, 0).x
        verify(titleRight <= stepLeft, "caption ends at " + titleRight + ", step label starts at " + stepLeft)
        verify(stepRight <= pane.width, "step label ends at " + stepRight + " in a pane " + pane.width + " wide")
        fuzzyCompare(step.width, step.implicitWidth, 1)
        verify(title.truncated)
        // ...and reads whole on hover.
        mouseMove(title, 1, 1)
        mouseMove(title, title.width / 2, title.height / 2)
        tryVerify(() => title.tipShown)
    }
    // A run's title that does not fit cuts the model's name (a Hugging Face repository id is long)
    // and keeps the strategy, which is what tells runs apart; hovering reads it whole.
    function test_aLongTitleCutsTheModelNameNotTheStrategy() {
        const pane = createTemporaryObject(comp, host.contentItem)
        const title = findChild(pane, "paneTitle")
        tryVerify(() => title.text === App.runs.run.title && title.text.indexOf(" · ") > 0)
        verify(!title.shortensModel && !title.truncated)
        const strategy = " · " + App.runs.run.strategyLabel
        let cut = false
        for (let w = 900; w >= 120 && !cut; w -= 5) {
            pane.width = w
            waitForRendering(pane)
            cut = title.shortensModel
        }
        verify(cut, "the model's name was never the part cut: " + title.text + " in " + title.width + " px; strategy" + strategy)
        verify(title.text.endsWith(strategy), title.text)
        verify(title.text.indexOf("…") > 0, title.text)
        verify(title.contentWidth <= title.width + 1, title.contentWidth + " in " + title.width)
        mouseMove(title, 1, 1)
        mouseMove(title, title.width / 2, title.height / 2)
        tryVerify(() => title.tipShown)
        compare(title.full, App.runs.run.title)  // what the tooltip shows
    }
    // A short caption in a narrow pane is shown whole: the step label shrinks to "12/48" first.
    function test_aNarrowPaneShrinksTheStepLabelBeforeTheCaption() {
        const pane = createTemporaryObject(comp, host.contentItem, {width: 190, caption: "A · surelock"})
        const title = findChild(pane, "paneTitle")
        const step = findChild(pane, "paneStep")
        tryVerify(() => step.text !== "")
        waitForRendering(pane)
        verify(!title.truncated, "caption cut to " + title.width + " px")
        verify(step.compact)
        verify(step.text.indexOf("step") < 0, step.text)
        pane.width = 600
        tryVerify(() => !step.compact)
        verify(step.text.indexOf("step ") === 0, step.text)
    }
    // Hovering a locked cell shows the candidates of the last step its row was computed, and says
    // which step that was; an active cell's are of the shown step, without that line.
    function test_hoverCardOfALockedCellNamesItsStep() {
        App.runs.setViewStep(App.runs.run.stepCount - 1)
        const pane = createTemporaryObject(comp, host.contentItem)
        const grid = findChild(pane, "denoiseGrid")
        tryVerify(() => grid.width > 0 && grid.contentHeight > 0)
        waitForRendering(pane)
        const hover = pos => {
            const r = grid.cellRect(pos)
            mouseMove(grid, 1, 1)
            mouseMove(grid, r.x + r.width / 2, r.y + r.height / 2)
            tryCompare(grid, "hoveredPosition", pos)
        }
        const line = findChild(pane, "hoverCandidatesStep")
        hover(0)  // locked in the synthetic run
        const info = App.runs.run.positionDetails(0)
        compare(info.state, "locked")
        verify(line.visible)
        compare(line.text, "candidates of step " + (info.current.step + 1))
        hover(7)  // never locked
        verify(!line.visible)
    }
    function test_scrubbingRepaintsOnlyChangedCells() {
        const pane = createTemporaryObject(comp, host.contentItem)
        const grid = findChild(pane, "denoiseGrid")
        tryVerify(() => grid.contentHeight > 0)
        App.runs.setViewStep(10)
        const before = grid.cellsRepainted
        App.runs.setViewStep(11)
        const delta = grid.cellsRepainted - before
        verify(delta > 0 && delta < 96, "repainted " + delta + " of 96 cells")
        App.runs.setViewStep(App.runs.run.stepCount - 1)
    }
}
