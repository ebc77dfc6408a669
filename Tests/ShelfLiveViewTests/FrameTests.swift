import Foundation
import ShelfCommandLine
import ShelfCore
import ShelfLiveView
import Testing

/// `FrameRenderer` against golden frames kept in Tests/ShelfLiveViewTests/Golden (`SHELF_RECORD_GOLDEN=1`
/// rewrites them; review the diff), and `FrameDiff`.
@Suite struct FrameTests {
    private static let golden = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")

    private static func check(_ frame: Frame, _ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let url = golden.appendingPathComponent(name + ".txt")
        if ProcessInfo.processInfo.environment["SHELF_RECORD_GOLDEN"] == "1" {
            try frame.text.write(to: url, atomically: true, encoding: .utf8)
        }
        let expected = try String(contentsOf: url, encoding: .utf8)
        #expect(frame.text == expected, sourceLocation: sourceLocation)
        for (index, row) in frame.rows.enumerated() {
            #expect(DisplayWidth.of(row.text) == frame.width, "row \(index): \(row.text)", sourceLocation: sourceLocation)
        }
    }

    /// A connected model showing `items`.
    private static func model(_ items: [Item]) -> ListViewModel {
        var model = ListViewModel()
        let session = model.connecting()
        _ = model.connected(session: session, identity: "a")
        model.listed(generation: model.beginList(), revision: 7, items: items, identity: "a")
        model.resize(listRows: FrameRenderer.listRows(height: 24))
        return model
    }

    private static let items = [
        Item(id: CountingIDs.id(1), title: "Dune", isRead: true, addedAt: fixedDate, revision: 3, author: "Frank Herbert", tags: ["sf"]),
        Item(id: CountingIDs.id(2), title: "The Left Hand of Darkness", isRead: false, addedAt: fixedDate, revision: 4, author: "Ursula K. Le Guin"),
        Item(id: CountingIDs.id(3), title: "三体 (The Three-Body Problem) 🙂 with a title long enough to be cut at eighty columns", isRead: false, addedAt: fixedDate, revision: 5),
        Item(id: CountingIDs.id(4), title: "Cafe\u{301} \u{1b}[31mred\u{1b}[0m", isRead: false, addedAt: fixedDate, revision: 6, note: "n"),
    ]

    @Test("the list at 80x24: header, rows cut by display width, control characters visible, status line")
    func listFrame() throws {
        var model = Self.model(Self.items)
        _ = model.press(.down)
        let frame = FrameRenderer(title: "127.0.0.1:7453").frame(model, width: 80, height: 24)
        try Self.check(frame, "list-80x24")
        #expect(frame.rows[2].style == .selected)
        #expect(frame.rows[1].style == .dim)
        #expect(frame.cursor == nil)
    }

    @Test("the add line keeps a refused title with the message above it, cursor at its end")
    func refusedAddFrame() throws {
        var model = Self.model(Self.items)
        _ = model.press(.character("a"))
        for character in "漢字 draft" { _ = model.press(.character(character)) }
        guard case .save(let request) = model.press(.enter) else { Issue.record("no save"); return }
        model.saved(token: request.token, .failure(.refused("Could not save that change")))
        let frame = FrameRenderer(title: "127.0.0.1:7453").frame(model, width: 80, height: 24)
        try Self.check(frame, "refused-add-80x24")
        #expect(frame.rows[22].style == .error)
        #expect(frame.cursor?.row == 23)
        #expect(frame.cursor?.column == 5 + 10)
    }

    @Test("the edit form: a note's line breaks as ⏎, the cursor inside wide text at its display column")
    func editFormFrame() throws {
        var model = Self.model(Self.items + [
            Item(id: CountingIDs.id(5), title: "三体 two", isRead: false, addedAt: fixedDate, revision: 7, note: "line one\nline two"),
        ])
        _ = model.press(.end)
        _ = model.press(.character("e"))
        for _ in 0..<4 { _ = model.press(.left) }
        let frame = FrameRenderer(title: "127.0.0.1:7453").frame(model, width: 80, height: 24)
        try Self.check(frame, "edit-form-80x24")
        #expect(frame.rows[22].text.hasPrefix("note: line one⏎line two"))
        // After 三体: "title: " is 7 columns, each of the two characters 2.
        #expect(frame.cursor?.row == 19)
        #expect(frame.cursor?.column == 7 + 4)
    }

    @Test("a line longer than the screen scrolls to keep the cursor in view")
    func longLineScrolls() {
        var model = Self.model(Self.items)
        _ = model.press(.character("a"))
        for character in "abcdefghijklmnopqrstuvwxyz" { _ = model.press(.character(character)) }
        let renderer = FrameRenderer(title: "t")
        let atEnd = renderer.frame(model, width: 20, height: 6)
        #expect(atEnd.rows[5].text == "add: mnopqrstuvwxyz ")
        #expect(atEnd.cursor?.column == 19)
        _ = model.press(.home)
        let atStart = renderer.frame(model, width: 20, height: 6)
        #expect(atStart.rows[5].text == "add: abcdefghijklmno")
        #expect(atStart.cursor?.column == 5)
    }

    @Test("reconnecting shows in the status line; the rows stay")
    func reconnectingFrame() throws {
        var model = Self.model(Self.items)
        model.disconnected(session: model.session, reason: "shelfd is shutting down")
        try Self.check(FrameRenderer(title: "127.0.0.1:7453").frame(model, width: 60, height: 10), "reconnecting-60x10")
    }

    @Test("the diff rewrites only changed rows, in one byte string; a new size redraws everything")
    func diff() {
        let old = Frame(width: 4, height: 3, rows: [.init("aaaa"), .init("bbbb", .selected), .init("cccc")])
        var new = old
        new.rows[2] = .init("dddd")
        let bytes = String(decoding: FrameDiff.bytes(from: old, to: new, color: true), as: UTF8.self)
        #expect(bytes == "\u{1b}[?25l\u{1b}[3;1Hdddd\u{1b}[0m")
        #expect(FrameDiff.bytes(from: new, to: new, color: true) == Array("\u{1b}[?25l".utf8))
        let first = String(decoding: FrameDiff.bytes(from: nil, to: old, color: false), as: UTF8.self)
        #expect(first == "\u{1b}[?25l\u{1b}[H\u{1b}[2J\u{1b}[1;1Haaaa\u{1b}[0m\u{1b}[2;1H\u{1b}[7mbbbb\u{1b}[0m\u{1b}[3;1Hcccc\u{1b}[0m")
        new.cursor = (2, 1)
        #expect(String(decoding: FrameDiff.bytes(from: old, to: new, color: true), as: UTF8.self).hasSuffix("\u{1b}[3;2H\u{1b}[?25h"))
    }
}
