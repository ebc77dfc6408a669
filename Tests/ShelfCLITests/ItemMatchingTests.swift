import Foundation
import ShelfCore
import Testing

@testable import ShelfCLI

/// `ItemMatching`: which items an `add` repeats, and what an edited note amounts to.
@Suite struct ItemMatchingTests {
    private static func item(_ n: Int, _ title: String, author: String? = nil) -> Item {
        let id = UUID(uuidString: "00000000-0000-4000-8000-00000000000\(n)") ?? UUID()
        return Item(id: id, title: title, isRead: false, addedAt: Date(timeIntervalSince1970: 0), revision: 1, author: author)
    }

    @Test("an add repeats an item with the same title, letter case and spacing aside, and the same author when one is given")
    func duplicates() {
        let dune = Self.item(1, "Dune", author: "Frank Herbert")
        let messiah = Self.item(2, "Dune  Messiah")
        let plain = Self.item(3, "DUNE")
        let items = [dune, messiah, plain]
        #expect(ItemMatching.duplicates(title: " dune ", author: nil, in: items) == [dune, plain])
        #expect(ItemMatching.duplicates(title: "Dune", author: "frank   HERBERT", in: items) == [dune])
        #expect(ItemMatching.duplicates(title: "Dune", author: "Brian Herbert", in: items) == [])
        #expect(ItemMatching.duplicates(title: "dune messiah", author: nil, in: items) == [messiah])
        #expect(ItemMatching.duplicates(title: "Dun", author: nil, in: items) == [])
        #expect(ItemMatching.duplicates(title: "Dune", author: "  ", in: items) == [dune, plain], "a blank author is none")
    }

    @Test("the word searched for is the title's longest")
    func searchWord() {
        #expect(ItemMatching.searchWord("The Left Hand of Darkness") == "Darkness")
        #expect(ItemMatching.searchWord("  Dune ") == "Dune")
        #expect(ItemMatching.searchWord("   ") == nil)
    }

    @Test("an edited note is unchanged when it is the same once trimmed, empty when blank, else the new text")
    func note() {
        #expect(ItemMatching.note(old: "Read it.", edited: "Read it.\n") == .unchanged)
        #expect(ItemMatching.note(old: "Line 1\nLine 2", edited: "Line 1\r\nLine 2\r\n") == .unchanged)
        #expect(ItemMatching.note(old: nil, edited: "\n \n") == .empty)
        #expect(ItemMatching.note(old: "Read it.", edited: "") == .empty)
        #expect(ItemMatching.note(old: nil, edited: "New\n\n") == .changed("New"))
        #expect(ItemMatching.note(old: "Old", edited: "  New\twords\n") == .changed("New\twords"))
    }
}
