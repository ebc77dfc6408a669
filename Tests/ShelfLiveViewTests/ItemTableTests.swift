import Foundation
import ShelfCore
@testable import ShelfLiveView
import Testing

/// `ItemTable`'s filtering against `ItemQuery`'s own: the rows a query passes are the items `ItemQuery.matches`
/// selects, in the list's order.
@Suite struct ItemTableTests {
    static let items = [
        Item(id: CountingIDs.id(1), title: "a\u{0}b", isRead: false, addedAt: fixedDate, revision: 1),
        Item(id: CountingIDs.id(2), title: "Crème", isRead: true, addedAt: fixedDate, revision: 2, tags: ["x"], note: "A\u{0}B"),
        Item(id: CountingIDs.id(3), title: "ab", isRead: true, addedAt: fixedDate, revision: 3, author: "a", tags: ["x"]),
        Item(id: CountingIDs.id(4), title: "Gone", isRead: true, addedAt: fixedDate, revision: 4, url: "a\u{0}b", tags: ["x"]),
        Item(id: CountingIDs.id(5), title: "Zé", isRead: false, addedAt: fixedDate, revision: 5, tags: ["a\u{0}b"]),
    ]

    @Test("a search with no needle for the keys (a NUL, or empty text) selects what ItemQuery selects",
          arguments: [
              (ItemQuery(text: "a\u{0}b"), [1, 2, 5]),
              (ItemQuery(filter: .read, text: "a\u{0}B", tags: ["X"]), [2]),
              (ItemQuery(filter: .unread, text: "\u{0}"), [1, 5]),
              (ItemQuery(text: "", tags: ["x"]), [2, 3]),
          ])
    func itemByItem(query: ItemQuery, expected: [Int]) {
        var table = ItemTable(Self.items)
        table.remove(CountingIDs.id(4))
        #expect(ItemTable.Filter(query).itemByItem != nil)
        let rows = table.rows(passing: query).map { table.items[$0].id }
        #expect(rows == expected.map(CountingIDs.id))
        #expect(rows == Self.items.filter { $0.id != CountingIDs.id(4) && query.matches($0) }.map(\Item.id))
        #expect(table.rows(passing: query, among: [0, 1, 2]) == rows.compactMap(table.slot(of:)).filter { $0 <= 2 })
    }
}
