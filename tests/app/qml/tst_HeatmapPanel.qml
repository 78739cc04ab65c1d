import QtQuick
import QtTest
import Dlmscope

TestCase {
    name: "HeatmapPanel"
    when: windowShown
    Window { id: host; visible: true; width: 800; height: 300 }
    width: 800; height: 300
    Component { id: comp; HeatmapPanel { width: 800; height: 300 } }

    function test_klMapHoverAndEpsilon() {
        const panel = createTemporaryObject(comp, host.contentItem)
        const map = findChild(panel, "heatmap")
        verify(map)
        compare(map.rowsDrawn, App.runs.run.stepCount)
        compare(map.epsilon, 5e-4)  // from the run's header settings
        waitForRendering(panel)
        mouseMove(map, 1, 1)  // the first move only enters the window
        mouseMove(map, map.width * 0.3, map.height * 0.6)
        tryVerify(() => map.hoverText.indexOf("position") === 0, 2000, map.hoverText)
    }
    // The current tab is marked, and only it: the mark follows a change of tab.
    function test_theCurrentTabIsMarked() {
        const panel = createTemporaryObject(comp, host.contentItem)
        const modes = findChild(panel, "heatmapModes")
        verify(modes)
        for (const current of [1, 0]) {
            modes.currentIndex = current
            for (let i = 0; i < modes.count; ++i) {
                const mark = findChild(modes.itemAt(i), "currentMark")
                verify(mark)
                compare(mark.visible, i === current, "tab " + i + " with tab " + current + " current")
            }
        }
    }
    // Compare mode offers the heatmap of A or of B, each with its own run's ε.
    function test_compareModeShowsAOrB() {
        const panel = createTemporaryObject(comp, host.contentItem)
        const map = findChild(panel, "heatmap")
        const sides = findChild(panel, "heatmapSides")
        verify(!sides.visible)
        App.runs.compareMode = true
        verify(sides.visible)
        compare(map.run, App.runs.run)
        sides.currentIndex = 1
        compare(map.run, App.runs.compareRun)
        compare(map.rowsDrawn, App.runs.compareRun.stepCount)
        compare(map.epsilon, App.runs.compareEpsilon)
        verify(App.runs.compareEpsilon !== App.runs.epsilon)  // B's run does not lock; A's does
        App.runs.compareMode = false
        compare(map.run, App.runs.run)
    }
    function test_revealMode() {
        const panel = createTemporaryObject(comp, host.contentItem)
        const map = findChild(panel, "heatmap")
        map.mode = "reveal"
        mouseMove(map, map.width * 0.3, map.height * 0.3)
        tryVerify(() => map.hoverText.indexOf("unmasked at step") > 0, 2000, map.hoverText)
    }
}
