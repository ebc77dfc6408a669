import ShelfLiveView
import Testing

/// `KeyDecoder`: bytes in, keys out.
@Suite struct KeyDecoderTests {
    private static func keys(_ text: String) -> [Key] {
        var decoder = KeyDecoder()
        return decoder.push(Array(text.utf8)) + decoder.flush()
    }

    @Test("arrows, Home/End and PgUp/PgDn in their CSI and SS3 forms, with modifiers ignored")
    func escapeSequences() {
        #expect(Self.keys("\u{1b}[A\u{1b}[B\u{1b}[C\u{1b}[D") == [.up, .down, .right, .left])
        #expect(Self.keys("\u{1b}OA\u{1b}OH\u{1b}OF") == [.up, .home, .end])
        #expect(Self.keys("\u{1b}[H\u{1b}[F\u{1b}[1~\u{1b}[4~\u{1b}[7~\u{1b}[8~") == [.home, .end, .home, .end, .home, .end])
        #expect(Self.keys("\u{1b}[5~\u{1b}[6~\u{1b}[3~\u{1b}[Z") == [.pageUp, .pageDown, .delete, .backTab])
        #expect(Self.keys("\u{1b}[1;5A\u{1b}[5;2~") == [.up, .pageUp])
        #expect(Self.keys("\u{1b}[99x" + "q") == [.character("q")])
    }

    @Test("a sequence split across reads waits for its rest; a lone Esc is Esc only once flushed")
    func splitAndLoneEscape() {
        var decoder = KeyDecoder()
        #expect(decoder.push([0x1B]) == [])
        #expect(decoder.isWaiting)
        #expect(decoder.push(Array("[".utf8)) == [])
        #expect(decoder.push(Array("B".utf8)) == [.down])
        #expect(decoder.push([0x1B]) == [])
        #expect(decoder.flush() == [.escape])
        #expect(!decoder.isWaiting)
        #expect(Self.keys("\u{1b}q") == [.escape, .character("q")])
    }

    @Test("UTF-8 input, a character split across reads, and an invalid byte as U+FFFD")
    func utf8() {
        #expect(Self.keys("é漢🙂") == [.character("é"), .character("漢"), .character("🙂")])
        var decoder = KeyDecoder()
        let bytes = Array("漢".utf8)
        #expect(decoder.push(bytes.prefix(2)) == [])
        #expect(decoder.push(bytes.suffix(1)) == [.character("漢")])
        #expect(decoder.push([0xFF, 0x61]) == [.character("\u{FFFD}"), .character("a")])
    }

    @Test("control keys: Enter, Tab, Backspace, Ctrl-letters")
    func controls() {
        #expect(Self.keys("\r\n\t\u{7f}\u{8}\u{3}\u{15}") == [.enter, .control("j"), .tab, .backspace, .backspace, .control("c"), .control("u")])
    }

    @Test("bracketed paste arrives as one piece, escapes and newlines included, even split across reads")
    func bracketedPaste() {
        #expect(Self.keys("a\u{1b}[200~x\u{1b}[Ay\nz\u{1b}[201~b") == [.character("a"), .paste("x\u{1b}[Ay\nz"), .character("b")])
        var decoder = KeyDecoder()
        #expect(decoder.push(Array("\u{1b}[200~hel".utf8)) == [])
        #expect(decoder.push(Array("lo\u{1b}[20".utf8)) == [])
        #expect(decoder.push(Array("1~".utf8)) == [.paste("hello")])
    }
}
