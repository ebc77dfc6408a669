import Foundation
import ShelfCore
import Testing

@testable import ShelfCLI

@Suite struct IDPrefixTests {
    private static func item(_ id: String, _ title: String, read: Bool = false) -> Item {
        Item(id: UUID(uuidString: id)!, title: title, isRead: read, addedAt: Date(timeIntervalSince1970: 0), revision: 1)
    }

    private static let dune = item("3FA2B1C4-5D6E-4F70-8192-A3B4C5D6E7F8", "Dune")
    private static let messiah = item("3FA2B9AA-0000-4000-8000-000000000002", "Dune Messiah", read: true)
    private static let left = item("7C00FFEE-1234-4567-89AB-CDEF01234567", "The Left Hand of Darkness")
    private static let items = [dune, messiah, left]

    @Test("a full UUID is used as is, in either letter case, without a lookup")
    func fullID() {
        #expect(IDPrefix.fullID("3fa2b1c4-5d6e-4f70-8192-a3b4c5d6e7f8") == Self.dune.id)
        #expect(IDPrefix.fullID("3FA2B1C4-5D6E-4F70-8192-A3B4C5D6E7F8") == Self.dune.id)
        #expect(IDPrefix.fullID("3fa2b1c4") == nil)
        #expect(IDPrefix.fullID("3fa2b1c45d6e4f708192a3b4c5d6e7f8") == nil)
    }

    @Test(
        "a prefix is its hex digits, hyphens dropped and lowercased",
        arguments: [
            ("3fa2", "3fa2"), ("3FA2", "3fa2"), ("3fa2-b1", "3fa2b1"), ("-3-f-a-2-", "3fa2"),
            ("3fa2b1c4-5d6e-4f70-8192-a3b4c5d6e7f8", "3fa2b1c45d6e4f708192a3b4c5d6e7f8"),
        ])
    func digits(text: String, digits: String) throws {
        #expect(try IDPrefix.digits(text) == digits)
    }

    @Test(
        "fewer than 4 hex digits, more than 32, or anything but hex digits and hyphens is malformed",
        arguments: ["", "3fa", "3-f-a", "----", "3fa2g", "zzzz", "3fa2 ", " 3fa2", "3fa2\n", "0x3fa2",
                    "3fa2b1c45d6e4f708192a3b4c5d6e7f80"])
    func malformed(text: String) {
        #expect(throws: IDPrefix.Failure.malformed(text)) { try IDPrefix.digits(text) }
        #expect(throws: IDPrefix.Failure.malformed(text)) { try IDPrefix.resolve(text, in: Self.items) }
    }

    @Test(
        "fullwidth digits are malformed, not hex")
    func fullwidthDigits() {
        #expect(throws: IDPrefix.Failure.malformed("３ｆａ２")) { try IDPrefix.digits("３ｆａ２") }
    }

    @Test(
        "a unique prefix finds its item, ignoring hyphens and letter case",
        arguments: [
            ("3fa2b1", "Dune"), ("3FA2B1", "Dune"), ("3fa2-b1c4", "Dune"), ("3fa2b1c4-5d6e-4f70-8192-a3b4c5d6e7f8", "Dune"),
            ("3fa2b9", "Dune Messiah"), ("7c00", "The Left Hand of Darkness"), ("7C00-FFEE", "The Left Hand of Darkness"),
        ])
    func unique(text: String, title: String) throws {
        #expect(try IDPrefix.resolve(text, in: Self.items).title == title)
    }

    @Test("a prefix no id starts with is no match")
    func noMatch() {
        #expect(throws: IDPrefix.Failure.noMatch("beef")) { try IDPrefix.resolve("beef", in: Self.items) }
        #expect(throws: IDPrefix.Failure.noMatch("3fa2")) { try IDPrefix.resolve("3fa2", in: []) }
        // Only the start of an id counts.
        #expect(throws: IDPrefix.Failure.noMatch("b1c4")) { try IDPrefix.resolve("b1c4", in: Self.items) }
    }

    @Test("a prefix of several ids is ambiguous and lists every candidate as list shows it")
    func ambiguous() {
        #expect(throws: IDPrefix.Failure.ambiguous("3FA2-B", candidates: ["3fa2b1c4 [ ] Dune", "3fa2b9aa [x] Dune Messiah"])) {
            try IDPrefix.resolve("3FA2-B", in: Self.items)
        }
    }

    @Test("the failures read as one clear message, with untrusted text escaped")
    func descriptions() {
        #expect(
            IDPrefix.Failure.malformed("xyz").description
                == "\"xyz\" is not an id: give a full id or at least 4 hex digits of one")
        #expect(
            IDPrefix.Failure.malformed("\u{1B}[2J").description
                == "\"\\u{1b}[2J\" is not an id: give a full id or at least 4 hex digits of one")
        #expect(IDPrefix.Failure.noMatch("beef").description == "no item has an id starting with beef")
        #expect(
            IDPrefix.Failure.ambiguous("3fa2", candidates: ["3fa2b1c4 [ ] Dune", "3fa2b9aa [x] Dune Messiah"]).description
                == "id 3fa2 is ambiguous; it matches:\n  3fa2b1c4 [ ] Dune\n  3fa2b9aa [x] Dune Messiah")
    }
}
