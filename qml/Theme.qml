pragma Singleton
import QtQuick

// The app's palette and type scale. State and event colours come from C++ (App.legend) so the
// grid, the legend and the exports can never disagree.
QtObject {
    readonly property color window: "#111317"
    readonly property color panel: "#181b21"
    readonly property color panelRaised: "#1f232b"
    readonly property color border: "#2b303a"
    readonly property color text: "#e8eaee"
    readonly property color dim: "#8a909c"
    readonly property color disabledText: "#4e5461"   // a control that cannot be used now
    readonly property color disabledFill: "#191c22"
    readonly property color accent: "#4f9dff"
    readonly property color toggledFill: "#24467a"    // a toggle that is on: the accent, dimmed
    readonly property color good: "#3fbf7f"
    readonly property color warn: "#e0a840"
    readonly property color error: "#ff6b6b"
    readonly property color seriesA: "#4f9dff"
    readonly property color seriesB: "#ff9f43"
    readonly property color seriesDense: "#8a909c"
    readonly property int spacing: 8
    readonly property int radius: 6
    readonly property string mono: "monospace"
    readonly property int small: 11
    readonly property int body: 13
    readonly property int title: 15
}
