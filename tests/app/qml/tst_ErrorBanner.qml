import QtQuick
import QtTest
import Dlmscope

TestCase {
    name: "ErrorBanner"
    when: windowShown
    Window { id: host; visible: true; width: 600; height: 80 }
    width: 600; height: 80
    Component { id: comp; ErrorBanner { width: 600 } }

    function test_showsAndDismisses() {
        const banner = createTemporaryObject(comp, host.contentItem)
        verify(!banner.visible)
        App.reportError("could not open /nowhere: no config.json")
        verify(banner.visible)
        compare(findChild(banner, "errorText").text, "could not open /nowhere: no config.json")
        App.clearError()
        verify(!banner.visible)
    }
    function test_badTraceIsAnErrorNotACrash() {
        const banner = createTemporaryObject(comp, host.contentItem)
        verify(!App.runs.openTrace("/nonexistent/trace.ndjson"))
        verify(banner.visible)
        verify(App.errorString.indexOf("trace") >= 0)
        compare(App.runs.run.stepCount, 24)  // the shown run is untouched
        App.clearError()
    }
    // A message that quotes a token or a folder name reads as written: "<s>" and "<b>" are not
    // turned into strike-through or bold (a label of the same text in Qt's automatic format
    // swallows the tags, so it is narrower).
    Component { id: autoLabel; Text { textFormat: Text.AutoText } }
    function test_aMessageIsNotMarkup() {
        const banner = createTemporaryObject(comp, host.contentItem)
        const message = "bad token <s>x</s> in <b>folder</b>"
        App.reportError(message)
        const shown = findChild(banner, "errorText")
        compare(shown.text, message)
        const rich = createTemporaryObject(autoLabel, host.contentItem, {text: message, font: shown.font})
        verify(shown.contentWidth > rich.contentWidth + 20, shown.contentWidth + " vs " + rich.contentWidth)
        App.clearError()
    }
}
