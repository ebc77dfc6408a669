import Foundation
@testable import ShelfCore
import ShelfJSON
import Testing

/// `Item.appendJSON` is the fast path of `Item.json`: both must write the same bytes, and read back the same item.
@Suite struct ItemJSONTests {
    static let items: [Item] = [
        Item(id: UUID(uuid: (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 255)), title: "Dune", isRead: false,
             addedAt: Date(timeIntervalSince1970: 1_767_323_045.123), revision: 1),
        Item(id: UUID(), title: "Quotes \" and \\ / ünïcødé 📚 \u{2028} \u{85}", isRead: true,
             addedAt: Date(timeIntervalSince1970: 0), revision: 18_446_744_073_709_551_615),
        Item(id: UUID(), title: "x", isRead: false, addedAt: Date(timeIntervalSince1970: 253_402_300_799.999), revision: 0),
        // Plain titles at and past the stack buffer's limit, and the largest revision through the buffer.
        Item(id: UUID(), title: String(repeating: "b", count: 256), isRead: true,
             addedAt: Date(timeIntervalSince1970: 1_767_323_045.5), revision: 18_446_744_073_709_551_615),
        Item(id: UUID(), title: String(repeating: "c", count: 257), isRead: false,
             addedAt: Date(timeIntervalSince1970: 1_767_323_045.5), revision: 10),
        Item(id: UUID(), title: String(repeating: "é", count: 128), isRead: false,
             addedAt: Date(timeIntervalSince1970: 1_767_323_045.5), revision: 9),
        Item(id: UUID(), title: "tab\there", isRead: false, addedAt: Date(timeIntervalSince1970: 1), revision: 100),
    ]

    @Test("the fast encoder writes exactly what the JSON writer writes for the same item", arguments: items)
    func sameBytes(item: Item) throws {
        var fast: [UInt8] = []
        item.appendJSON(to: &fast)
        #expect(String(decoding: fast, as: UTF8.self) == String(decoding: JSONWriter.encode(item.json), as: UTF8.self))
        #expect(Item(json: try JSONParser.parse(fast)) == Timestamp.truncatedItem(item))
    }

    /// Items with every member, escapes in each (a note's newlines and tabs, quotes, a control character in a
    /// title stored before the rule), and a read one.
    static let detailed: [Item] = [
        Item(id: UUID(), title: "Dune", isRead: true, addedAt: Date(timeIntervalSince1970: 1), revision: 7,
             author: "Frank \"Frank\" Herbert", url: "https://example.org/dune", tags: ["classic", "sci\\fi"],
             note: "Read the appendices.\nThen\tthe map.", readAt: Date(timeIntervalSince1970: 2)),
        Item(id: UUID(), title: "\u{1}x", isRead: false, addedAt: Date(timeIntervalSince1970: 1), revision: 12_345,
             tags: ["one"], note: String(repeating: "a", count: 65_536)),
        Item(id: UUID(), title: "t", isRead: true, addedAt: Date(timeIntervalSince1970: 1), revision: 0,
             readAt: Date(timeIntervalSince1970: 3)),
    ]

    /// Found by review: the history and the reply estimates counted a change as its title alone, so a 64 KiB note
    /// per update was held uncounted.
    @Test("jsonByteCount is exactly the bytes appendJSON writes, every member and escape included", arguments: items + detailed)
    func byteCount(item: Item) {
        var bytes: [UInt8] = []
        item.appendJSON(to: &bytes)
        #expect(item.jsonByteCount == bytes.count)
    }

    @Test("the stack-buffer path and the piecewise one write the same bytes", arguments: items)
    func bothPaths(item: Item) {
        var fast: [UInt8] = [1, 2]
        item.appendJSON(to: &fast)
        var piecewise: [UInt8] = [1, 2]
        item.appendJSONPiecewise(to: &piecewise)
        #expect(fast == piecewise)
    }

    @Test("ids are written lowercase and hyphenated, as uuidString would be")
    func idText() {
        for item in Self.items { #expect(item.id.wireString == item.id.uuidString.lowercased()) }
    }
}

extension Timestamp {
    /// `item` with `addedAt` truncated to milliseconds, as it reads back.
    static func truncatedItem(_ item: Item) -> Item {
        Item(id: item.id, title: item.title, isRead: item.isRead, addedAt: truncated(item.addedAt), revision: item.revision)
    }
}

@Suite struct RandomUUIDTests {
    @Test("UUID.random makes version 4, RFC 9562 variant ids, all different")
    func versionAndVariant() {
        var seen = Set<UUID>()
        for _ in 0..<1000 {
            let id = UUID.random()
            #expect(id.uuid.6 >> 4 == 4)
            #expect(id.uuid.8 >> 6 == 0b10)
            seen.insert(id)
        }
        #expect(seen.count == 1000)
    }
}

@Suite struct UUIDWireTextTests {
    @Test("UUID(wireText:) agrees with UUID(uuidString:) on 2,000 random ids in both cases")
    func agreesWithFoundation() {
        for _ in 0..<1000 {
            let id = UUID.random()
            #expect(UUID(wireText: id.wireString) == id)
            #expect(UUID(wireText: id.uuidString) == id)
        }
    }

    @Test("anything but the 36-character hyphenated form is refused, as Foundation refuses it", arguments: [
        "", "3fa2", "00000000-0000-0000-0000-00000000000", "00000000-0000-0000-0000-0000000000001",
        "00000000000000000000000000000000", "00000000-0000-0000-0000-00000000000g", "00000000_0000-0000-0000-000000000000",
        "{00000000-0000-0000-0000-000000000000}", " 00000000-0000-0000-0000-000000000000", "００000000-0000-0000-0000-000000000000",
    ])
    func refused(text: String) {
        #expect(UUID(wireText: text) == nil)
        #expect(UUID(uuidString: text) == nil)
    }
}
