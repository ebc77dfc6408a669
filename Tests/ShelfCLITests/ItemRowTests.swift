import Foundation
import ShelfCore
import Testing

@testable import ShelfCLI

@Suite struct ItemRowTests {
    private static func item(_ title: String, read: Bool = false, id: String = "3FA2B1C4-5D6E-4F70-8192-A3B4C5D6E7F8") -> Item {
        Item(id: UUID(uuidString: id)!, title: title, isRead: read, addedAt: Date(timeIntervalSince1970: 0), revision: 1)
    }

    @Test("a row is the lowercase 8-digit short id, the read mark and the title")
    func rows() {
        #expect(ItemRow.text(Self.item("Dune")) == "3fa2b1c4 [ ] Dune")
        #expect(ItemRow.text(Self.item("Dune", read: true)) == "3fa2b1c4 [x] Dune")
        #expect(ItemRow.text(Self.item("Über 📚", id: "00000000-0000-4000-8000-000000000000")) == "00000000 [ ] Über 📚")
        #expect(ItemRow.shortID(Self.item("Dune")) == "3fa2b1c4")
    }

    @Test("a row shows unsafe title characters escaped")
    func escapedTitle() {
        #expect(ItemRow.text(Self.item("abc\u{202E}fed")) == "3fa2b1c4 [ ] abc\\u{202e}fed")
        #expect(ItemRow.text(Self.item("\u{9B}2J", read: true)) == "3fa2b1c4 [x] \\u{9b}2J")
    }

    @Test("show prints one name-value line per field: full id, the title made safe, read state, when added, the revision that last changed it, the list's")
    func details() {
        var item = Self.item("abc\u{202E}fed", read: true)
        item.revision = 42
        #expect(ItemRow.details(item, listRevision: 50) == [
            "id       3fa2b1c4-5d6e-4f70-8192-a3b4c5d6e7f8",
            "title    abc\\u{202e}fed",
            "read     yes",
            "added    1970-01-01T00:00:00.000Z",
            "changed  at revision 42",
            "list     at revision 50",
        ])
        #expect(ItemRow.details(Self.item("Dune"), listRevision: 1)[2] == "read     no")
    }

    @Test("the summary counts items and read items and names the revision, singular for one")
    func summary() {
        let unread = Self.item("A")
        let read = Self.item("B", read: true)
        #expect(ItemRow.summary([], revision: 0) == "0 items, 0 read (revision 0)")
        #expect(ItemRow.summary([read], revision: 7) == "1 item, 1 read (revision 7)")
        #expect(ItemRow.summary([unread], revision: 1) == "1 item, 0 read (revision 1)")
        #expect(ItemRow.summary([unread, read, unread], revision: 7) == "3 items, 1 read (revision 7)")
        #expect(ItemRow.summary([read, read], revision: UInt64.max) == "2 items, 2 read (revision 18446744073709551615)")
        // Filtered: how many of that kind were shown; the list's other items are not counted.
        #expect(ItemRow.summary([unread], revision: 3, query: .unread) == "1 unread item (revision 3)")
        #expect(ItemRow.summary([read, read], revision: 3, query: .read) == "2 read items (revision 3)")
        #expect(ItemRow.summary([], revision: 3, query: .read) == "0 read items (revision 3)")
    }

    private static func detailed() -> Item {
        var item = Self.item("Dune", read: true)
        item.author = "Frank Herbert"
        item.url = "https://example.org/dune"
        item.tags = ["classic", "scifi"]
        item.note = "Read the appendices.\nThen the map."
        item.readAt = Date(timeIntervalSince1970: 60)
        item.revision = 9
        return item
    }

    @Test("a row shows the author and the tags when the item has them")
    func rowWithDetails() {
        #expect(ItemRow.text(Self.detailed()) == "3fa2b1c4 [x] Dune — Frank Herbert #classic #scifi")
        var tagged = Self.item("Dune")
        tagged.tags = ["scifi"]
        #expect(ItemRow.text(tagged) == "3fa2b1c4 [ ] Dune #scifi")
    }

    @Test("a list row is cut to the width by display width, and whole without one")
    func rowWidth() {
        let wide = Self.item("砂の惑星 📚")
        #expect(ItemRow.text(wide, width: nil) == "3fa2b1c4 [ ] 砂の惑星 📚")
        #expect(ItemRow.text(wide, width: 80) == "3fa2b1c4 [ ] 砂の惑星 📚")
        #expect(ItemRow.text(wide, width: 18) == "3fa2b1c4 [ ] 砂の…")
        #expect(ItemRow.text(Self.detailed(), width: 20) == "3fa2b1c4 [x] Dune —…")
    }

    @Test("show prints every member an item has, a note's lines indented under the first")
    func detailsWithEveryMember() {
        #expect(ItemRow.details(Self.detailed(), listRevision: 12) == [
            "id       3fa2b1c4-5d6e-4f70-8192-a3b4c5d6e7f8",
            "title    Dune",
            "author   Frank Herbert",
            "url      https://example.org/dune",
            "tags     classic scifi",
            "read     yes",
            "read at  1970-01-01T00:01:00.000Z",
            "added    1970-01-01T00:00:00.000Z",
            "note     Read the appendices.\n         Then the map.",
            "changed  at revision 9",
            "list     at revision 12",
        ])
    }

    @Test("the summary of a search says how many match, and says when --limit held some back")
    func searchSummary() {
        let read = Self.item("B", read: true)
        #expect(ItemRow.summary([read], revision: 7, query: ItemQuery(text: "b")) == "1 item matches, 1 read (revision 7)")
        #expect(ItemRow.summary([read, read], revision: 7, query: ItemQuery(tags: ["x"])) == "2 items match, 2 read (revision 7)")
        #expect(ItemRow.summary([], revision: 7, query: ItemQuery(filter: .unread, text: "b")) == "0 unread items match (revision 7)")
        #expect(ItemRow.summary([read], revision: 7, query: ItemQuery(limit: 1), more: true) == "1 item, 1 read (revision 7); more not shown (--limit 1)")
        #expect(ItemRow.summary([read], revision: 7, query: ItemQuery(limit: 1), more: false) == "1 item, 1 read (revision 7)")
    }
}
