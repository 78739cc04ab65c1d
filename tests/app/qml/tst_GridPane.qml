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
