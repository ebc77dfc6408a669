import Foundation
@testable import ShelfCore
import Testing

/// `ItemQuery` (protocol/PROTOCOL.md §5, `list`): search over every text member ignoring case and diacritics, tags
/// that must all be present, the orders, and pages by cursor.
@Suite struct ItemQueryTests {
    static let base = Date(timeIntervalSince1970: 1_767_323_045)

    static func item(
        _ n: Int, _ title: String, author: String? = nil, url: String? = nil, tags: [String] = [], note: String? = nil,
        readAt: Int? = nil
    ) -> Item {
        Item(
            id: SequentialIDs.id(UInt64(n)), title: title, isRead: readAt != nil, addedAt: base + Double(n), revision: Revision(n),
            author: author, url: url, tags: tags, note: note, readAt: readAt.map { base + Double($0) })
    }

    static let items = [
        item(1, "Dune", author: "Frank Herbert", tags: ["classic", "scifi"]),
        item(2, "Le Petit Prince", author: "Antoine de Saint-Exupéry", note: "Read to the kids", readAt: 30),
        item(3, "Solaris", author: "Stanisław Lem", url: "https://example.org/solaris", tags: ["scifi"], readAt: 20),
        item(4, "Crème brûlée at home", tags: ["food"]),
        item(5, "金閣寺", author: "三島由紀夫"),
    ]

    private func titles(_ query: ItemQuery) throws -> [String] {
        try query.run(on: Self.items).page.map(\.title)
    }

    @Test("text is found in the title, author, note, url and tags, ignoring case and diacritics")
    func search() throws {
        #expect(try titles(ItemQuery(text: "dune")) == ["Dune"])
        #expect(try titles(ItemQuery(text: "HERBERT")) == ["Dune"])
        #expect(try titles(ItemQuery(text: "exupery")) == ["Le Petit Prince"])
        #expect(try titles(ItemQuery(text: "KIDS")) == ["Le Petit Prince"])
        #expect(try titles(ItemQuery(text: "example.org")) == ["Solaris"])
        #expect(try titles(ItemQuery(text: "SCIFI")) == ["Dune", "Solaris"])
        #expect(try titles(ItemQuery(text: "creme brulee")) == ["Crème brûlée at home"])
        #expect(try titles(ItemQuery(text: "STANISŁAW")) == ["Solaris"])
        // ł is a letter of its own, not l with a mark (it has no decomposition): it does not fold to l.
        #expect(try titles(ItemQuery(text: "Stanislaw")) == [])
        #expect(try titles(ItemQuery(text: "三島")) == ["金閣寺"])
        #expect(try titles(ItemQuery(text: "nothing like it")) == [])
        #expect(try titles(ItemQuery(text: "")) == Self.items.map(\.title), "an empty text matches everything")
    }

    @Test("tags must all be present; the filter applies too")
    func tagsAndFilter() throws {
        #expect(try titles(ItemQuery(tags: ["scifi"])) == ["Dune", "Solaris"])
        #expect(try titles(ItemQuery(tags: ["scifi", "Classic"])) == ["Dune"])
        #expect(try titles(ItemQuery(filter: .read, tags: ["scifi"])) == ["Solaris"])
        #expect(try titles(ItemQuery(filter: .unread, text: "e")) == ["Dune", "Crème brûlée at home"])
    }

    @Test("sort by title, author or readAt, ascending or descending; items without the key last; ties in list order")
    func sorting() throws {
        #expect(try titles(ItemQuery(sort: .init(.title))) == ["Crème brûlée at home", "Dune", "Le Petit Prince", "Solaris", "金閣寺"])
        #expect(try titles(ItemQuery(sort: .init(.title, descending: true))) == ["金閣寺", "Solaris", "Le Petit Prince", "Dune", "Crème brûlée at home"])
        #expect(try titles(ItemQuery(sort: .init(.author))) == ["Le Petit Prince", "Dune", "Solaris", "金閣寺", "Crème brûlée at home"])
        #expect(try titles(ItemQuery(sort: .init(.readAt))) == ["Solaris", "Le Petit Prince", "Dune", "Crème brûlée at home", "金閣寺"])
        #expect(try titles(ItemQuery(sort: .init(.readAt, descending: true))) == ["Le Petit Prince", "Solaris", "Dune", "Crème brûlée at home", "金閣寺"])
        #expect(try titles(ItemQuery(sort: .init(.added, descending: true))) == ["金閣寺", "Crème brûlée at home", "Solaris", "Le Petit Prince", "Dune"])
        #expect(ItemQuery.Sort(wire: "-readAt") == .init(.readAt, descending: true))
        #expect(ItemQuery.Sort(wire: "rating") == nil)
    }

    @Test("limit and cursor page through the selection; next is nil on the last page; a cursor that is gone throws")
    func paging() throws {
        var query = ItemQuery(limit: 2)
        var seen: [String] = []
        var pages = 0
        while true {
            let (page, next) = try query.run(on: Self.items)
            seen += page.map(\.title)
            pages += 1
            guard let next else { break }
            query.cursor = next
        }
        #expect(seen == Self.items.map(\.title))
        #expect(pages == 3)
        #expect(try ItemQuery(limit: 5).run(on: Self.items).next == nil, "exactly one page: no next")
        #expect(throws: ItemQuery.CursorGone(cursor: SequentialIDs.id(9))) {
            try ItemQuery(limit: 2, cursor: SequentialIDs.id(9)).run(on: Self.items)
        }
        #expect(throws: ItemQuery.CursorGone.self) {
            try ItemQuery(text: "dune", cursor: SequentialIDs.id(3)).run(on: Self.items)
        }
    }

    /// Found by an attack run: a naive search took 5000 × 5000 steps per note for a needle of 4999 `a`s and a `b`
    /// in a note of 9999 `a`s; 200 such items held the event loop for 113 s.
    @Test("the ASCII search reads each byte once and falls back at most as often, whatever the needle")
    func linearSearch() throws {
        let haystack = Array(repeating: UInt8(ascii: "a"), count: 9_999)
        for needle in [Array(repeating: UInt8(ascii: "a"), count: 4_999) + [UInt8(ascii: "b")],
                       Array(repeating: UInt8(ascii: "a"), count: 255) + [UInt8(ascii: "b")],
                       Array("abaabab".utf8)] {
            let failure = ItemQuery.Matcher.failureTable(needle)
            var fallbacks = 0
            let found = haystack.withUnsafeBufferPointer { ItemQuery.Matcher.asciiSearch($0, needle, failure, fallbacks: &fallbacks) }
            #expect(!found)
            #expect(fallbacks <= haystack.count, "\(fallbacks) fallbacks for \(haystack.count) bytes")
        }
        // Matches are found across a fallback, in any letter case.
        let text = Array("xxAAAABAAAB".utf8)
        let needle = Array("aaab".utf8)
        var fallbacks = 0
        #expect(text.withUnsafeBufferPointer {
            ItemQuery.Matcher.asciiSearch($0, needle, ItemQuery.Matcher.failureTable(needle), fallbacks: &fallbacks)
        })
        #expect(try titles(ItemQuery(text: "ERBER")) == ["Dune"])
    }

    @Test("a search's work is the bytes it searches, times the needle's bytes when the needle is not ASCII")
    func work() {
        var items = ItemCollection()
        for n in 1...200 { _ = items.append(Self.item(n, "t", note: String(repeating: "a", count: 9_999))) }
        #expect(ItemQuery(text: "ab").estimatedWork(over: items) == 200 * 10_000)
        // Folded first: "été" is searched as "ete", ASCII; "三島" as its six bytes.
        #expect(ItemQuery(text: "\u{e9}t\u{e9}").estimatedWork(over: items) == 200 * 10_000)
        #expect(ItemQuery(text: "三島").estimatedWork(over: items) == 200 * 10_000 * 6)
        #expect(ItemQuery(filter: .read).estimatedWork(over: items) == 200)
    }
}
