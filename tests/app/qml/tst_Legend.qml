import QtQuick
import QtTest
import Dlmscope

TestCase {
    name: "Legend"
    when: windowShown
    width: 800; height: 200
    Component { id: comp; Legend { width: 800 } }

    function test_listsEveryStateAndEvent() {
        const legend = createTemporaryObject(comp, this)
        verify(legend)
        compare(legend.entries.length, 13)  // 6 states + 7 events (design.md §4)
        const names = legend.entries.map(e => e.name)
        for (const n of ["prompt", "masked", "active", "locked", "frozen", "seed",
                         "unmask", "remask", "replace", "flipflop", "lock", "unlock", "keep"])
            verify(names.indexOf(n) >= 0, n)
        waitForRendering(legend)
        verify(legend.implicitHeight > 0)
    }
}
