import QtQuick
import QtTest
import Dlmscope

// A toggle that is on must look on (Fusion's own checked shading is faint on this theme).
TestCase {
    name: "ToggleButton"
    when: windowShown
    width: 300; height: 100
    Component { id: comp; ToggleButton { text: "Compare" } }

    function test_aCheckedToggleIsTinted() {
        const b = createTemporaryObject(comp, this)
        verify(b)
        verify(b.checkable)
        const off = String(b.palette.button)  // a copy: a color read from a property is a live reference
        b.toggle()
        verify(b.checked)
        verify(!Qt.colorEqual(b.palette.button, off), "a checked toggle looks as it did unchecked")
        compare(b.palette.button, Theme.toggledFill)
        b.enabled = false  // a disabled toggle (Live with no run) does not claim to be on
        verify(Qt.colorEqual(b.palette.button, off))
    }
}
