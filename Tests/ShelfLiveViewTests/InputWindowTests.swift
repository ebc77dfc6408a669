@testable import ShelfLiveView
import ShelfTestSupport
import Testing

/// `FrameRenderer.window`: the part of an input field shown for the cursor, over a long field of wide, zero-width,
/// combining and control characters.
@Suite struct InputWindowTests {
    /// 5,000 characters drawn from ASCII, fullwidth, CJK, Hangul, emoji (one with U+FE0F, one a ZWJ sequence), a
    /// combining accent, a zero-width space, a line break and a control character; seeded, so always the same text.
    static let text: String = {
        let palette: [Character] = [
            "a", "B", " ", "~", "漢", "字", "😀", "❤\u{FE0F}", "👩\u{200D}👩\u{200D}👧", "한", "e\u{301}", "\u{200B}",
            "\n", "\u{1}", "ｆ",
        ]
        var random = SplitMix64(seed: 42)
        return String((0..<5_000).map { _ in palette[Int(random.next() % UInt64(palette.count))] })
    }()

    /// (room, cursor, shown text, cursor column) for `text`: rooms down to one column, cursors at the start, within
    /// the first window, in the middle and at the end.
    static let expected: [(room: Int, cursor: Int, shown: String, column: Int)] = [
        (1, 2500, "", 0),
        (2, 0, "", 0),
        (2, 1, "B~", 0),
        (2, 37, "👩\u{200d}👩\u{200d}👧", 0),
        (2, 38, "漢", 0),
        (2, 40, "B ", 0),
        (2, 41, "B ", 1),
        (2, 2500, "Ba", 1),
        (2, 4999, "⏎\u{200b}", 1),
        (2, 5000, "", 0),
        (3, 0, "", 0),
        (3, 1, "B~", 0),
        (3, 37, "👩\u{200d}👩\u{200d}👧", 2),
        (3, 38, "👩\u{200d}👩\u{200d}👧", 2),
        (3, 40, "漢B", 2),
        (3, 41, "B ", 1),
        (3, 2500, "Ba⏎", 1),
        (3, 4999, "⏎\u{200b}", 1),
        (3, 5000, "", 0),
        (7, 0, "\\u{1}B~", 0),
        (7, 1, "\\u{1}B~", 5),
        (7, 37, "👩\u{200d}👩\u{200d}👧👩\u{200d}👩\u{200d}👧漢", 2),
        (7, 38, "👩\u{200d}👩\u{200d}👧👩\u{200d}👩\u{200d}👧漢", 4),
        (7, 40, "👩\u{200d}👩\u{200d}👧漢漢B", 6),
        (7, 41, "漢漢B ", 5),
        (7, 2500, "👩\u{200d}👩\u{200d}👧B한Ba", 6),
        (7, 4999, "a❤\u{fe0f}\u{200b}❤\u{fe0f}⏎\u{200b}", 6),
        (7, 5000, "⏎\u{200b}\\u{1}", 6),
        (40, 0, "\\u{1}B~한e\u{301}⏎e\u{301}👩\u{200d}👩\u{200d}👧e\u{301}ｆ B👩\u{200d}👩\u{200d}👧e\u{301}\u{200b}字ｆ😀⏎~⏎Ba漢 a❤\u{fe0f}B", 0),
        (40, 1, "\\u{1}B~한e\u{301}⏎e\u{301}👩\u{200d}👩\u{200d}👧e\u{301}ｆ B👩\u{200d}👩\u{200d}👧e\u{301}\u{200b}字ｆ😀⏎~⏎Ba漢 a❤\u{fe0f}B", 5),
        (40, 37, "😀⏎~⏎Ba漢 a❤\u{fe0f}B\\u{1}😀B❤\u{fe0f}👩\u{200d}👩\u{200d}👧\\u{1}e\u{301}\\u{1}👩\u{200d}👩\u{200d}👧", 39),
        (40, 38, "⏎~⏎Ba漢 a❤\u{fe0f}B\\u{1}😀B❤\u{fe0f}👩\u{200d}👩\u{200d}👧\\u{1}e\u{301}\\u{1}👩\u{200d}👩\u{200d}👧👩\u{200d}👩\u{200d}👧", 39),
        (40, 40, "a漢 a❤\u{fe0f}B\\u{1}😀B❤\u{fe0f}👩\u{200d}👩\u{200d}👧\\u{1}e\u{301}\\u{1}👩\u{200d}👩\u{200d}👧👩\u{200d}👩\u{200d}👧漢漢B", 39),
        (40, 41, "漢 a❤\u{fe0f}B\\u{1}😀B❤\u{fe0f}👩\u{200d}👩\u{200d}👧\\u{1}e\u{301}\\u{1}👩\u{200d}👩\u{200d}👧👩\u{200d}👩\u{200d}👧漢漢B ", 39),
        (40, 2500, "字e\u{301}B😀👩\u{200d}👩\u{200d}👧aBa\u{200b}a한😀漢😀ｆ字❤\u{fe0f}😀\\u{1}👩\u{200d}👩\u{200d}👧B한Ba", 39),
        (40, 4999, "😀aｆｆ~e\u{301}e\u{301}한⏎a👩\u{200d}👩\u{200d}👧\\u{1}\\u{1}漢👩\u{200d}👩\u{200d}👧e\u{301}ｆa❤\u{fe0f}\u{200b}❤\u{fe0f}⏎\u{200b}", 39),
        (40, 5000, "ｆ~e\u{301}e\u{301}한⏎a👩\u{200d}👩\u{200d}👧\\u{1}\\u{1}漢👩\u{200d}👩\u{200d}👧e\u{301}ｆa❤\u{fe0f}\u{200b}❤\u{fe0f}⏎\u{200b}\\u{1}", 39),
    ]

    @Test("a long field shows the same window and cursor column for every room and cursor")
    func longField() {
        #expect(Self.text.count == 5_000)
        for (room, cursor, shown, column) in Self.expected {
            var field = InputLine.Field("note", Self.text, allowsLineBreaks: true)
            field.cursor = cursor
            let window = FrameRenderer.window(field, room: room)
            #expect(window.text == shown, "room \(room), cursor \(cursor)")
            #expect(window.column == column, "room \(room), cursor \(cursor)")
        }
    }
}
