import Foundation
import ShelfCore
import Testing

/// `SnapshotCodec`: the file store's JSON snapshot (format 1), encoded and checked on decode.
struct SnapshotCodecTests {
    static let path = "/data/reading-list.json"

    private func sample() throws -> ListSnapshot {
        try snapshot(revision: 9, [
            item(1, "Protocols", revision: 1),
            item(2, "Quotes \" and \\ and / and ünïcødé 📚", isRead: true, revision: 9,
                 at: Date(timeIntervalSince1970: 1_800_000_000.002)),
            item(3, "Protocols", revision: 5, at: Date(timeIntervalSince1970: 1_234_567_890.999)),
        ])
    }

    /// The JSON text of one snapshot file.
    private func file(format: Int = 1, revision: Int = 1, items: String) -> Data {
        Data(#"{"format":\#(format),"revision":\#(revision),"items":[\#(items)]}"#.utf8)
    }

    private func storedItem(
        id: String = "00000000-0000-0000-0000-000000000001", title: String = "A", revision: Int = 1,
        addedAt: String = "2026-11-29T13:14:15.123Z"
    ) -> String {
        #"{"id":"\#(id)","title":"\#(title)","isRead":false,"addedAt":"\#(addedAt)","revision":\#(revision)}"#
    }

    private func decodeError(_ data: Data) -> StorageError? {
        do {
            _ = try SnapshotCodec.decode([UInt8](data), path: Self.path)
            return nil
        } catch {
            return error
        }
    }

    @Test("a snapshot survives encode then decode exactly")
    func roundTrip() throws {
        let original = try sample()

        let decoded = try SnapshotCodec.decode(SnapshotCodec.encode(original), path: Self.path)

        #expect(decoded == original)
        #expect(decoded.items.items.map(\.addedAt) == original.items.items.map(\.addedAt))
    }

    @Test("an empty snapshot at revision 0 round-trips")
    func emptyRoundTrip() throws {
        let data = Data(SnapshotCodec.encode(ListSnapshot()))

        #expect(try SnapshotCodec.decode([UInt8](data), path: Self.path) == ListSnapshot())
    }

    @Test("the encoded JSON carries format 1, the revision and each item's fields as text")
    func encodedShape() throws {
        let data = Data(SnapshotCodec.encode(try sample()))
        let text = try #require(String(data: data, encoding: .utf8))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let items = try #require(object["items"] as? [[String: Any]])

        #expect(text.contains(#""format":1"#))
        #expect(text.hasSuffix("}\n"))
        #expect(text.filter { $0 == "\n" }.count == 1)
        #expect(object["format"] as? Int == 1)
        #expect(object["revision"] as? Int == 9)
        #expect(items.count == 3)
        #expect(items[0]["id"] as? String == "00000000-0000-0000-0000-000000000001")
        #expect(items[0]["title"] as? String == "Protocols")
        #expect(items[0]["isRead"] as? Bool == false)
        #expect(items[0]["addedAt"] as? String == "2026-11-29T13:14:15.123Z")
        #expect(items[0]["revision"] as? Int == 1)
        #expect(items[1]["addedAt"] as? String == "2027-01-15T08:00:00.002Z")
        #expect(items[1]["isRead"] as? Bool == true)
        #expect(items[2]["addedAt"] as? String == "2009-02-13T23:31:30.999Z")
    }

    @Test("a hand-written file decodes to the items it lists, in order")
    func decodesHandWritten() throws {
        let data = file(revision: 3, items: [
            storedItem(id: "00000000-0000-0000-0000-000000000002", title: "B", revision: 3),
            storedItem(id: "00000000-0000-0000-0000-00000000000A", title: "A", revision: 1, addedAt: "2026-11-29T13:14:15Z"),
        ].joined(separator: ","))

        let decoded = try SnapshotCodec.decode([UInt8](data), path: Self.path)

        #expect(decoded.revision == 3)
        #expect(decoded.items.items.map(\.id) == [SequentialIDs.id(2), SequentialIDs.id(10)])
        #expect(decoded.items.items.map(\.title) == ["B", "A"])
        #expect(decoded.items.items.map(\.revision) == [3, 1])
        #expect(decoded.items.items.map { Timestamp.format($0.addedAt) }
            == ["2026-11-29T13:14:15.123Z", "2026-11-29T13:14:15.000Z"])
    }

    @Test("text that is not a snapshot object is corrupt, naming the path", arguments: [
        "", "{", "[]", "null", #"{"revision":1,"items":[]}"#, #"{"format":"1","revision":1,"items":[]}"#,
    ])
    func notASnapshot(text: String) throws {
        let error = try #require(decodeError(Data(text.utf8)))

        guard case .corrupt(let path, _) = error else {
            Issue.record("expected .corrupt, got \(error)")
            return
        }
        #expect(path == Self.path)
        #expect(error.description.hasPrefix(Self.path + " is not a valid Shelf list"))
    }

    @Test("an unknown format version is refused as unknownFormat")
    func unknownFormat() {
        let error = decodeError(Data(#"{"format":99,"whatever":true}"#.utf8))

        #expect(error == .unknownFormat(path: Self.path, format: 99))
        #expect(error?.description.hasPrefix(Self.path + " has format 99") == true)
    }

    @Test("two items with the same id are refused as duplicateID, naming the id")
    func duplicateIDs() {
        let data = file(revision: 2, items: [
            storedItem(title: "A", revision: 1), storedItem(title: "B", revision: 2),
        ].joined(separator: ","))

        #expect(decodeError(data) == .duplicateID(path: Self.path, id: "00000000-0000-0000-0000-000000000001"))
    }

    @Test("an item that breaks a rule makes the file corrupt", arguments: [
        ("bad id", #"{"id":"not-a-uuid","title":"A","isRead":false,"addedAt":"2026-11-29T13:14:15.123Z","revision":1}"#),
        ("blank title", #"{"id":"00000000-0000-0000-0000-000000000001","title":"  ","isRead":false,"addedAt":"2026-11-29T13:14:15.123Z","revision":1}"#),
        ("untrimmed title", #"{"id":"00000000-0000-0000-0000-000000000001","title":" A ","isRead":false,"addedAt":"2026-11-29T13:14:15.123Z","revision":1}"#),
        ("control character", #"{"id":"00000000-0000-0000-0000-000000000001","title":"A\u0007B","isRead":false,"addedAt":"2026-11-29T13:14:15.123Z","revision":1}"#),
        ("revision above the list's", #"{"id":"00000000-0000-0000-0000-000000000001","title":"A","isRead":false,"addedAt":"2026-11-29T13:14:15.123Z","revision":2}"#),
        ("bad addedAt", #"{"id":"00000000-0000-0000-0000-000000000001","title":"A","isRead":false,"addedAt":"yesterday","revision":1}"#),
        ("missing field", #"{"id":"00000000-0000-0000-0000-000000000001","title":"A","addedAt":"2026-11-29T13:14:15.123Z","revision":1}"#),
        ("negative revision", #"{"id":"00000000-0000-0000-0000-000000000001","title":"A","isRead":false,"addedAt":"2026-11-29T13:14:15.123Z","revision":-1}"#),
    ])
    func badItem(what: String, json: String) throws {
        let error = try #require(decodeError(file(revision: 1, items: json)), "\(what)")

        guard case .corrupt(let path, _) = error else {
            Issue.record("\(what): expected .corrupt, got \(error)")
            return
        }
        #expect(path == Self.path)
    }

    @Test("the reason for a bad item says which item and what is wrong")
    func badItemReason() {
        let data = file(revision: 1, items: storedItem(revision: 1) + "," + storedItem(id: "nope", revision: 1))

        #expect(decodeError(data) == .corrupt(path: Self.path, reason: #"item 1 has id "nope", which is not a UUID"#))
        #expect(
            decodeError(file(revision: 1, items: storedItem(revision: 4)))
                == .corrupt(path: Self.path, reason: "item 0 has revision 4, above the list's 1"))
    }
}
