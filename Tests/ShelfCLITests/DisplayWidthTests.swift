import Testing

@testable import ShelfCommandLine

/// `DisplayWidth`: terminal columns by character, and cutting text to fit.
@Suite struct DisplayWidthTests {
    @Test(
        "ASCII and Latin letters take one column, CJK and emoji two, combining marks and zero-width joiners none",
        arguments: [
            ("Dune", 4), ("Über", 4), ("e\u{301}", 1), ("\u{301}", 0), ("砂の惑星", 8), ("한국어", 6), ("ｆｕｌｌ", 8),
            ("📚", 2), ("👨‍👩‍👧", 2), ("🇫🇷", 2), ("❤️", 2), ("❤", 1), ("a\u{200B}b", 2), ("", 0), ("Dune 砂 📚", 10),
        ] as [(String, Int)])
    func widths(text: String, columns: Int) {
        #expect(DisplayWidth.of(text) == columns)
    }

    @Test("text that fits is unchanged; longer text is cut to the width, ending in …, never splitting a wide character")
    func truncate() {
        #expect(DisplayWidth.truncate("Dune", to: 4) == "Dune")
        #expect(DisplayWidth.truncate("Dune Messiah", to: 8) == "Dune Me…")
        #expect(DisplayWidth.of(DisplayWidth.truncate("Dune Messiah", to: 8)) == 8)
        // 砂の惑星 is 8 columns: at 6, two wide characters fit before the ellipsis, and the third would straddle it.
        #expect(DisplayWidth.truncate("砂の惑星", to: 6) == "砂の…")
        #expect(DisplayWidth.truncate("砂の惑星", to: 5) == "砂の…")
        #expect(DisplayWidth.truncate("e\u{301}e\u{301}e\u{301}", to: 2) == "e\u{301}…")
        #expect(DisplayWidth.truncate("📚📚", to: 3) == "📚…")
        #expect(DisplayWidth.truncate("abc", to: 1) == "…")
        #expect(DisplayWidth.truncate("abc", to: 0) == "")
    }

    @Test("the width is the terminal's, else $COLUMNS when it is a positive whole number, else none")
    func terminalWidth() {
        #expect(TerminalWidth.choose(terminal: 120, columns: "40") == 120)
        #expect(TerminalWidth.choose(terminal: 0, columns: "40") == 40)
        #expect(TerminalWidth.choose(terminal: nil, columns: "40") == 40)
        #expect(TerminalWidth.choose(terminal: nil, columns: "0") == nil)
        #expect(TerminalWidth.choose(terminal: nil, columns: "-3") == nil)
        #expect(TerminalWidth.choose(terminal: nil, columns: "wide") == nil)
        #expect(TerminalWidth.choose(terminal: nil, columns: nil) == nil)
    }

    @Test("the editor is $VISUAL, else $EDITOR, else vi; blank ones count as unset")
    func editor() {
        #expect(ExternalEditor.command(environment: ["VISUAL": "code -w", "EDITOR": "nano"]) == "code -w")
        #expect(ExternalEditor.command(environment: ["VISUAL": " ", "EDITOR": "nano"]) == "nano")
        #expect(ExternalEditor.command(environment: ["EDITOR": ""]) == "vi")
        #expect(ExternalEditor.command(environment: [:]) == "vi")
    }
}
