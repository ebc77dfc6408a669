import ShelfLiveView
import Testing

/// The input line's cursor editing as readline does it: keys in, text and cursor out.
@Suite struct InputLineTests {
    /// A model with the add line open, after `keys`.
    private static func field(after keys: [Key], note: Bool = false) -> InputLine.Field? {
        var model = ListViewModel()
        let session = model.connecting()
        _ = model.connected(session: session, identity: "a")
        model.listed(generation: model.beginList(), revision: 1, items: [item(1, "Dune", revision: 1)], identity: "a")
        _ = model.press(.character(note ? "e" : "a"))
        if note { for _ in 0..<3 { _ = model.press(.tab) } }
        for key in keys { _ = model.press(key) }
        guard case .input(let line) = model.mode else { return nil }
        return line.fields[line.focus]
    }

    private static func typed(_ text: String) -> [Key] { text.map(Key.character) }

    @Test("Left and Right move by whole characters; typing goes in at the cursor")
    func leftRightInsert() {
        let field = Self.field(after: Self.typed("Dne") + [.left, .left, .character("u"), .right, .right, .right])
        #expect(field?.text == "Dune")
        #expect(field?.cursor == 4)
    }

    @Test("Home and End, Ctrl-A and Ctrl-E go to the ends")
    func homeEnd() {
        #expect(Self.field(after: Self.typed("une") + [.home, .character("D")])?.text == "Dune")
        #expect(Self.field(after: Self.typed("une") + [.control("a"), .character("D"), .control("e"), .character("!")])?.text == "Dune!")
        #expect(Self.field(after: Self.typed("ab") + [.home, .end])?.cursor == 2)
    }

    @Test("Backspace deletes before the cursor, Delete and Ctrl-D at it; neither goes past an end")
    func deleteAtCursor() {
        let field = Self.field(after: Self.typed("Duxne") + [.left, .left, .backspace, .home, .backspace, .delete])
        #expect(field?.text == "une")
        #expect(field?.cursor == 0)
        #expect(Self.field(after: Self.typed("ab") + [.delete, .left, .control("d")])?.text == "a")
    }

    @Test("Ctrl-U deletes to the start, Ctrl-K to the end, Ctrl-W the word before the cursor")
    func killKeys() {
        let base = Self.typed("the left hand") + [.left, .left, .left, .left, .left]
        #expect(Self.field(after: base + [.control("u")])?.text == " hand")
        #expect(Self.field(after: base + [.control("k")])?.text == "the left")
        let word = Self.field(after: base + [.control("w")])
        #expect(word?.text == "the  hand")
        #expect(word?.cursor == 4)
        #expect(Self.field(after: Self.typed("a b  ") + [.control("w")])?.text == "a ")
    }

    @Test("multi-byte and wide characters are one cursor step each; a combining mark joins the character before")
    func unicode() {
        let wide = Self.field(after: Self.typed("三体🙂") + [.left, .backspace, .character("x")])
        #expect(wide?.text == "三x🙂")
        #expect(wide?.cursor == 2)
        let combined = Self.field(after: Self.typed("Cafe") + [.character("\u{301}"), .left, .character("!")])
        #expect(combined?.text == "Caf!e\u{301}")
        #expect(combined?.cursor == 4)
        #expect(Self.field(after: Self.typed("e") + [.character("\u{301}"), .backspace])?.text == "")
    }

    @Test("a paste goes in at the cursor; only a note keeps its line breaks, and Ctrl-J types one there")
    func pasteAndLineBreaks() {
        let title = Self.field(after: Self.typed("ab") + [.left, .paste("1\n2")])
        #expect(title?.text == "a1 2b")
        #expect(title?.cursor == 4)
        let note = Self.field(after: [.control("u"), .paste("one\r\ntwo"), .control("j"), .character("3")], note: true)
        #expect(note?.text == "one\ntwo\n3")
        #expect(note?.label == "note")
    }

    @Test("Ctrl-J is Enter outside a note: the add line saves")
    func controlJSaves() {
        var model = ListViewModel()
        let session = model.connecting()
        _ = model.connected(session: session, identity: "a")
        model.listed(generation: model.beginList(), revision: 1, items: [], identity: "a")
        _ = model.press(.character("a"))
        _ = model.press(.character("x"))
        guard case .save(let request) = model.press(.control("j")) else { Issue.record("no save"); return }
        #expect(request.mutation == .add(title: "x"))
    }
}
