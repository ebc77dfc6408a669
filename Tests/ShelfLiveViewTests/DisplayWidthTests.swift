import ShelfLiveView
import Testing

/// `DisplayWidth`: columns per character, and cutting to a width.
@Suite struct DisplayWidthTests {
    @Test("ASCII one, CJK and emoji two, combining marks none, a ZWJ family one picture of two")
    func widths() {
        #expect(DisplayWidth.of("abc") == 3)
        #expect(DisplayWidth.of("漢字") == 4)
        #expect(DisplayWidth.of("한") == 2)
        #expect(DisplayWidth.of("🙂") == 2)
        #expect(DisplayWidth.of("e\u{301}") == 1)
        #expect(DisplayWidth.of("👨‍👩‍👧") == 2)
        #expect(DisplayWidth.of("❤\u{FE0F}") == 2)
        #expect(DisplayWidth.of("ｱ") == 1)
    }

    @Test("cutting ends with an ellipsis within the width and never splits a wide character")
    func truncation() {
        #expect(DisplayWidth.truncate("Dune", to: 10) == ("Dune", 4))
        #expect(DisplayWidth.truncate("The Left Hand", to: 8) == ("The Lef…", 8))
        #expect(DisplayWidth.truncate("漢字漢字", to: 6) == ("漢字…", 5))
        #expect(DisplayWidth.truncate("e\u{301}e\u{301}e\u{301}", to: 2) == ("e\u{301}…", 2))
        #expect(DisplayWidth.fit("漢", to: 4) == "漢  ")
    }
}
