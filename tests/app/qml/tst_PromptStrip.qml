import QtQuick
import QtTest
import Dlmscope

TestCase {
    name: "PromptStrip"
    when: windowShown
    width: 400; height: 200
    Component { id: comp; PromptStrip { width: 380 } }

    function pieceTexts(strip) {
        const out = []
        for (let i = 0; i < strip.children.length; ++i) {
            const c = strip.children[i]
            for (let j = 0; j < c.children.length; ++j)
                if (c.children[j].objectName === "pieceText") out.push(c.children[j])
        }
        return out
    }

    // "<s>" is a token: it reads as "<s>", not as an empty strike-through tag.
    function test_specialTokensReadAsText() {
        const strip = createTemporaryObject(comp, this, {pieces: [{text: "<s>", special: true}, {text: "<|user|>", special: true}, {text: "Hi", special: false}]})
        const texts = pieceTexts(strip)
        compare(texts.length, 3)
        compare(texts[0].text, "<s>")
        verify(texts[0].contentWidth > 12, "<s> is drawn (" + texts[0].contentWidth + " px)")
        verify(texts[1].contentWidth > 30, "<|user|> is drawn (" + texts[1].contentWidth + " px)")
    }

    // A prompt longer than maxPieces shows its last pieces after a pill counting the rest.
    function test_longPromptSaysWhatItLeavesOut() {
        const pieces = []
        for (let i = 0; i < 50; ++i) pieces.push({text: " w" + i, special: false})
        const strip = createTemporaryObject(comp, this, {pieces: pieces, maxPieces: 20})
        compare(strip.hidden, 30)
        compare(pieceTexts(strip).length, 20)
        compare(pieceTexts(strip)[19].text, " w49")
    }
}
