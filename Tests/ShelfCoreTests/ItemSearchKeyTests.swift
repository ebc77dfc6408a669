import Foundation
@testable import ShelfCore
import Testing

/// `ItemSearchKey`: a needle occurs in an item's folded key exactly when `ItemQuery(text:)` matches the item, so a
/// client searching the keys it keeps finds what the server's `list` finds.
@Suite struct ItemSearchKeyTests {
    static let items = [
        ItemQueryTests.item(1, "Dune", author: "Frank Herbert", tags: ["classic", "scifi"]),
        ItemQueryTests.item(2, "Le Petit Prince", author: "Antoine de Saint-Exupéry", note: "Read to\nthe kids"),
        ItemQueryTests.item(3, "Solaris", author: "Stanisław Lem", url: "https://example.org/solaris"),
        ItemQueryTests.item(4, "Crème brûlée at home", tags: ["food"]),
        ItemQueryTests.item(5, "金閣寺", author: "三島由紀夫"),
        ItemQueryTests.item(6, "Cafe\u{301} CRÈME", note: "Straße ÅNGSTRÖM"),
        ItemQueryTests.item(7, "ＦＵＬＬ width 🙂", tags: ["été"]),
    ]

    static let needles = [
        "dune", "DUNE", "herbert", "exupery", "EXUPÉRY", "to\nthe", "kids", "lem", "Stanisław", "stanislaw",
        "example.org", "creme brulee", "BRÛLÉE", "food", "金閣", "三島", "café", "cafe", "crème", "strasse", "straße",
        "angstrom", "ＦＵＬＬ", "full", "🙂", "ete", "été", "e", "é", "a", "zz", "\u{301}", " ",
    ]

    @Test("a needle occurs in the key exactly when ItemQuery(text:) matches, for every item and needle")
    func agreesWithTheQuery() {
        for item in Self.items {
            var key: [UInt8] = []
            ItemSearchKey.append(item, to: &key)
            for text in Self.needles {
                let expected = ItemQuery(text: text).matches(item)
                let found = ItemSearchKey.Needle(text).map { needle in key.withUnsafeBufferPointer { needle.occurs(in: $0) } }
                // No needle: the folded text is empty (everything matches) or unsearchable in keys.
                #expect((found ?? expected) == expected, "\(text) in \(item.title)")
            }
        }
    }

    @Test("a needle never spans two members: each ends in a NUL byte, which no needle holds")
    func membersAreSeparate() {
        let item = ItemQueryTests.item(1, "ab", author: "cd")
        var key: [UInt8] = []
        ItemSearchKey.append(item, to: &key)
        #expect(key == Array("ab\u{0}cd\u{0}".utf8))
        let needle = ItemSearchKey.Needle("bc")
        #expect(needle.map { n in key.withUnsafeBufferPointer { n.occurs(in: $0) } } == false)
        #expect(ItemSearchKey.Needle("a\u{0}c") == nil)
        #expect(ItemSearchKey.Needle("") == nil)
    }
}
