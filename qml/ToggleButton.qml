import QtQuick
import QtQuick.Controls
import Dlmscope

// A button that stays on or off (Compare, Live). Fusion's checked look is faint on this dark
// theme: a checked one is tinted with the accent, so its state reads at a glance.
Button {
    checkable: true
    palette.button: checked && enabled ? Theme.toggledFill : Theme.panelRaised
}
