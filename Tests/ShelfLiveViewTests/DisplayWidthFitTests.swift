import ShelfCommandLine
import ShelfLiveView
import Testing

/// `DisplayWidth.fit`: a frame's row cut or padded to exactly its width, by display width.
@Suite struct DisplayWidthFitTests {
    @Test("rows are padded to the width, and cut with an ellipsis without splitting a wide character")
    func fit() {
        #expect(DisplayWidth.fit("Dune", to: 6) == "Dune  ")
        #expect(DisplayWidth.fit("The Left Hand", to: 8) == "The Lef…")
        #expect(DisplayWidth.fit("漢字漢字", to: 6) == "漢字… ")
        #expect(DisplayWidth.fit("漢", to: 4) == "漢  ")
        #expect(DisplayWidth.fit("e\u{301}e\u{301}e\u{301}", to: 2) == "e\u{301}…")
        #expect(DisplayWidth.fit("👨‍👩‍👧 family", to: 5) == "👨‍👩‍👧 f…")
        for text in ["Dune", "漢字漢字", "🙂🙂🙂", "e\u{301}x"] {
            for width in 0...7 { #expect(DisplayWidth.of(DisplayWidth.fit(text, to: width)) == width, "\(text) \(width)") }
        }
    }
}
