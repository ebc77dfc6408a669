import Foundation
import ShelfCore
import Testing

/// `SnapshotCodec`: the file store's snapshot. Format 2 (a header line, then one item per line) is written and read;
/// format 1 (one JSON object) is still read. Every file is checked on decode.
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

    /// The JSON text of a format 1 snapshot file.
    private func file(format: Int = 1, revision: Int = 1, items: String) -> [UInt8] {
        Array(#"{"format":\#(format),"revision":\#(revision),"items":[\#(items)]}"#.utf8)
    }

    /// The text of a format 2 snapshot file whose header promises `count` items (default: as many as given).
    private func file2(revision: Int = 1, count: Int? = nil, _ lines: [String]) -> [UInt8] {
        Array((#"{"format":2,"revision":\#(revision),"items":\#(count ?? lines.count)}"# + "\n"
            + lines.map { $0 + "\n" }.joined()).utf8)
    }

    private func storedItem(
        id: String = "00000000-0000-0000-0000-000000000001", title: String = "A", revision: Int = 1,
        addedAt: String = "2026-11-29T13:14:15.123Z"
    ) -> String {
        #"{"id":"\#(id)","title":"\#(title)","isRead":false,"addedAt":"\#(addedAt)","revision":\#(revision)}"#
    }

    private func decodeError(_ bytes: [UInt8]) -> StorageError? {
        do {
            _ = try SnapshotCodec.decode(bytes, path: Self.path)
            return nil
        } catch {
            return error
        }
    }

    /// The list identity the encoding tests write.
    static let identity = UUID(uuidString: "5E1F0000-0000-4000-8000-000000000001") ?? UUID()

    @Test("this build writes format 3: the first line is its header, with the list's identity and a checksum")
    func formats() throws {
        #expect(SnapshotCodec.format == 3)
        let bytes = SnapshotCodec.encode(ListSnapshot(), identity: Self.identity)
        #expect(String(decoding: bytes, as: UTF8.self)
            == #"{"format":3,"revision":0,"items":0,"list":"5e1f0000-0000-4000-8000-000000000001","crc":"80ad57f0"}"# + "\n")
        #expect(try SnapshotCodec.decodeStored(bytes, path: Self.path).identity == Self.identity)
    }

    @Test("a snapshot survives encode then decode exactly")
    func roundTrip() throws {
        let original = try sample()

        let decoded = try SnapshotCodec.decode(SnapshotCodec.encode(original, identity: Self.identity), path: Self.path)

        #expect(decoded == original)
        #expect(decoded.items.items.map(\.addedAt) == original.items.items.map(\.addedAt))
    }

    @Test("an empty snapshot at revision 0 is the header line alone, and round-trips")
    func emptyRoundTrip() throws {
        let bytes = SnapshotCodec.encode(ListSnapshot(), identity: Self.identity)

        #expect(String(decoding: bytes, as: UTF8.self)
            == #"{"format":3,"revision":0,"items":0,"list":"5e1f0000-0000-4000-8000-000000000001","crc":"80ad57f0"}"# + "\n")
        #expect(try SnapshotCodec.decode(bytes, path: Self.path) == ListSnapshot())
    }

    @Test("the encoded text is a format 3 header line, then each item on its own line in list order, each line ending with its CRC-32C")
    func encodedShape() throws {
        let text = String(decoding: SnapshotCodec.encode(try sample(), identity: Self.identity), as: UTF8.self)

        #expect(text == """
            {"format":3,"revision":9,"items":3,"list":"5e1f0000-0000-4000-8000-000000000001","crc":"efe35358"}
            {"id":"00000000-0000-0000-0000-000000000001","title":"Protocols","isRead":false,"addedAt":"2026-11-29T13:14:15.123Z","revision":1,"crc":"8d82ed29"}
            {"id":"00000000-0000-0000-0000-000000000002","title":"Quotes \\" and \\\\ and / and ünïcødé 📚","isRead":true,"addedAt":"2027-01-15T08:00:00.002Z","revision":9,"crc":"a545493f"}
            {"id":"00000000-0000-0000-0000-000000000003","title":"Protocols","isRead":false,"addedAt":"2009-02-13T23:31:30.999Z","revision":5,"crc":"771387f3"}

            """)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let header = try #require(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
        #expect(header["format"] as? Int == 3)
        #expect(header["revision"] as? Int == 9)
        #expect(header["items"] as? Int == 3)
        let second = try #require(try JSONSerialization.jsonObject(with: Data(lines[2].utf8)) as? [String: Any])
        #expect(second["title"] as? String == "Quotes \" and \\ and / and ünïcødé 📚")
        #expect(lines.count == 5)
        #expect(lines[4] == "")
    }

    @Test("a hand-written format 1 file decodes to the items it lists, in order")
    func decodesHandWrittenFormat1() throws {
        let bytes = file(revision: 3, items: [
            storedItem(id: "00000000-0000-0000-0000-000000000002", title: "B", revision: 3),
            storedItem(id: "00000000-0000-0000-0000-00000000000A", title: "A", revision: 1, addedAt: "2026-11-29T13:14:15Z"),
        ].joined(separator: ","))

        let decoded = try SnapshotCodec.decode(bytes, path: Self.path)

        #expect(decoded.revision == 3)
        #expect(decoded.items.items.map(\.id) == [SequentialIDs.id(2), SequentialIDs.id(10)])
        #expect(decoded.items.items.map(\.title) == ["B", "A"])
        #expect(decoded.items.items.map(\.revision) == [3, 1])
        #expect(decoded.items.items.map { Timestamp.format($0.addedAt) }
            == ["2026-11-29T13:14:15.123Z", "2026-11-29T13:14:15.000Z"])
    }

    @Test("a format 1 file spread over several lines, members in any order, still decodes")
    func decodesPrettyFormat1() throws {
        let text = """
            {
              "revision": 2,
              "items": [
                {"revision": 2, "addedAt": "2026-11-29T14:14:15.5+01:00", "isRead": true, "title": "B",
                 "id": "00000000-0000-0000-0000-000000000002"}
              ],
              "format": 1
            }

            """

        let decoded = try SnapshotCodec.decode(Array(text.utf8), path: Self.path)

        #expect(decoded == (try snapshot(revision: 2, [
            item(2, "B", isRead: true, revision: 2, at: try #require(Timestamp.parse("2026-11-29T13:14:15.500Z"))),
        ])))
    }

    @Test("a hand-written format 2 file decodes to the items it lists, in order")
    func decodesHandWrittenFormat2() throws {
        let bytes = file2(revision: 3, [
            storedItem(id: "00000000-0000-0000-0000-000000000002", title: "B", revision: 3),
            #" { "revision" : 1, "title" : "A", "id" : "00000000-0000-0000-0000-00000000000A", "isRead" : true, "addedAt" : "2026-11-29T13:14:15Z" } "#,
        ])

        let decoded = try SnapshotCodec.decode(bytes, path: Self.path)

        #expect(decoded.revision == 3)
        #expect(decoded.items.items.map(\.id) == [SequentialIDs.id(2), SequentialIDs.id(10)])
        #expect(decoded.items.items.map(\.title) == ["B", "A"])
        #expect(decoded.items.items.map(\.isRead) == [false, true])
        #expect(decoded.items.items.map(\.revision) == [3, 1])
        #expect(decoded.items.items.map { Timestamp.format($0.addedAt) }
            == ["2026-11-29T13:14:15.123Z", "2026-11-29T13:14:15.000Z"])
    }

    @Test("a large snapshot decodes in list order, and a bad line deep inside is named by its line number")
    func largeSnapshot() throws {
        let count: UInt64 = 5_000
        let original = try snapshot(revision: count, (1...count).map { item($0, "Book \($0)", revision: $0) })
        #expect(try SnapshotCodec.decode(SnapshotCodec.encode(original, identity: Self.identity), path: Self.path) == original)
        // Format 2, whose lines have no checksum, so that the item checks name the line.
        let bytes = Array(([#"{"format":2,"revision":5000,"items":5000}"#]
            + original.items.map { item in
                var line: [UInt8] = []
                item.appendJSON(to: &line)
                return String(decoding: line, as: UTF8.self)
            }).map { $0 + "\n" }.joined().utf8)
        #expect(try SnapshotCodec.decode(bytes, path: Self.path) == original)

        // Lines are parsed in chunks, one per core: numbering must hold in every chunk, and the earliest bad line wins.
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n").map(String.init)
        func broken(at indices: [Int]) -> [UInt8] {
            var copy = lines
            for index in indices { copy[index] = storedItem(id: "bad", revision: 1) }
            return Array(copy.map { $0 + "\n" }.joined().utf8)
        }
        #expect(decodeError(broken(at: [4_000])) == .corrupt(path: Self.path, reason: #"line 4001 has no valid "id" (a UUID)"#))
        #expect(decodeError(broken(at: [1_000, 4_000]))
            == .corrupt(path: Self.path, reason: #"line 1001 has no valid "id" (a UUID)"#))
        #expect(decodeError(broken(at: [4_999, 5_000]))
            == .corrupt(path: Self.path, reason: #"line 5000 has no valid "id" (a UUID)"#))
    }

    @Test("text that is not a snapshot is corrupt, naming the path and the problem", arguments: [
        ("", "not JSON: unexpected end of input"),
        ("{", "not JSON: unexpected end of input"),
        ("[]", #"not a JSON object with a numeric "format""#),
        ("null", #"not a JSON object with a numeric "format""#),
        (#"{"revision":1,"items":[]}"#, #"not a JSON object with a numeric "format""#),
        (#"{"format":"1","revision":1,"items":[]}"#, #"not a JSON object with a numeric "format""#),
        (#"{"format":1,"revision":1}"#, #"format 1 needs a numeric "revision" and an "items" array"#),
        (#"{"format":1,"revision":-1,"items":[]}"#, #"format 1 needs a numeric "revision" and an "items" array"#),
        (#"{"format":2,"items":0}"# + "\n", #"line 1: the header needs a numeric "revision" and "items""#),
        (#"{"format":2,"revision":-1,"items":0}"# + "\n", #"line 1: the header needs a numeric "revision" and "items""#),
        (#"{"format":2,"revision":1,"items":"0"}"# + "\n", #"line 1: the header needs a numeric "revision" and "items""#),
    ])
    func notASnapshot(text: String, reason: String) throws {
        let error = try #require(decodeError(Array(text.utf8)))

        #expect(error == .corrupt(path: Self.path, reason: reason))
        #expect(error.description.hasPrefix(Self.path + " is not a valid Shelf list ("))
    }

    /// Found by a hostile-input run: with no item lines after it, a header without its LF was accepted.
    @Test("a format 2 header without its newline, and no items, is a last line cut short")
    func headerWithoutNewline() {
        let error = decodeError(Array(#"{"format":2,"revision":1,"items":0}"#.utf8))
        #expect(error == .corrupt(path: Self.path, reason: "the last line is cut short (no newline at the end)"))
    }

    @Test("a format 2 file whose lines do not match its header is corrupt, naming the line", arguments: [
        ("a last item line without its newline", Array((#"{"format":2,"revision":1,"items":1}"# + "\n"
            + #"{"id":"00000000-0000-0000-0000-000000000001","title":"A","isRead":false,"addedAt":"2026-11-29T13:14:15.123Z","revision":1}"#).utf8),
         "the last line is cut short (no newline at the end)"),
        ("fewer items than promised", Array((#"{"format":2,"revision":1,"items":2}"# + "\n"
            + #"{"id":"00000000-0000-0000-0000-000000000001","title":"A","isRead":false,"addedAt":"2026-11-29T13:14:15.123Z","revision":1}"# + "\n").utf8),
         "the header promises 2 items but the file holds 1"),
        ("more items than promised", Array((#"{"format":2,"revision":1,"items":0}"# + "\n"
            + #"{"id":"00000000-0000-0000-0000-000000000001","title":"A","isRead":false,"addedAt":"2026-11-29T13:14:15.123Z","revision":1}"# + "\n").utf8),
         "the header promises 0 items but the file holds 1"),
        ("an empty line", Array((#"{"format":2,"revision":0,"items":0}"# + "\n\n").utf8), "line 2: unexpected end of input"),
        ("a line that is not JSON", Array((#"{"format":2,"revision":0,"items":1}"# + "\n" + "{]\n").utf8),
         "line 2: unexpected character ']' at byte 1"),
        ("a line that is not an object", Array((#"{"format":2,"revision":0,"items":1}"# + "\n" + "[1]\n").utf8),
         "line 2 is not an object"),
    ])
    func format2Structure(what: String, bytes: [UInt8], reason: String) {
        #expect(decodeError(bytes) == .corrupt(path: Self.path, reason: reason), "\(what)")
    }

    @Test("an unknown format version is refused as unknownFormat, in either layout", arguments: [
        (#"{"format":99,"whatever":true}"#, "99"),
        (#"{"format":0,"revision":0,"items":[]}"#, "0"),
        (#"{"format":4,"revision":0,"items":0}"# + "\n", "4"),
        // Found by a hostile-input run: these read "not JSON: unexpected data after the JSON value".
        (#"{"format":2.0,"revision":1,"items":0}"# + "\n", "2.0"),
        (#"{"format":2.5,"revision":1,"items":0}"# + "\n" + #"{"x":1}"# + "\n", "2.5"),
        (#"{"format":1e30,"revision":1,"items":[]}"#, "1e30"),
        (#"{"format":99999999999999999999,"revision":1,"items":[]}"#, "99999999999999999999"),
    ])
    func unknownFormat(text: String, format: String) {
        let error = decodeError(Array(text.utf8))

        #expect(error == .unknownFormat(path: Self.path, format: format))
        #expect(error?.description
            == "\(Self.path) has format \(format), which this shelfd does not read; it was left untouched — use a newer shelfd")
    }

    @Test("two items with the same id are refused as duplicateID, naming the id, in either format")
    func duplicateIDs() {
        let items = [storedItem(title: "A", revision: 1), storedItem(title: "B", revision: 2)]

        #expect(decodeError(file(revision: 2, items: items.joined(separator: ",")))
            == .duplicateID(path: Self.path, id: "00000000-0000-0000-0000-000000000001"))
        #expect(decodeError(file2(revision: 2, items))
            == .duplicateID(path: Self.path, id: "00000000-0000-0000-0000-000000000001"))
        #expect(decodeError(file2(revision: 2, items))?.description
            == "\(Self.path) lists item 00000000-0000-0000-0000-000000000001 twice; it was left untouched — fix or move the file")
    }

    @Test("an item that breaks a rule makes the file corrupt, saying which item and what is wrong", arguments: [
        (#"{"id":"not-a-uuid","title":"A","isRead":false,"addedAt":"2026-11-29T13:14:15.123Z","revision":1}"#,
         #"has no valid "id" (a UUID)"#),
        (#"{"title":"A","isRead":false,"addedAt":"2026-11-29T13:14:15.123Z","revision":1}"#, #"has no valid "id" (a UUID)"#),
        (#"{"id":"00000000-0000-0000-0000-000000000001","title":"  ","isRead":false,"addedAt":"2026-11-29T13:14:15.123Z","revision":1}"#,
         #"has no valid "title""#),
        (#"{"id":"00000000-0000-0000-0000-000000000001","title":" A ","isRead":false,"addedAt":"2026-11-29T13:14:15.123Z","revision":1}"#,
         #"has no valid "title""#),
        (#"{"id":"00000000-0000-0000-0000-000000000001","title":"A\u0007B","isRead":false,"addedAt":"2026-11-29T13:14:15.123Z","revision":1}"#,
         #"has no valid "title""#),
        (#"{"id":"00000000-0000-0000-0000-000000000001","title":7,"isRead":false,"addedAt":"2026-11-29T13:14:15.123Z","revision":1}"#,
         #"has no valid "title""#),
        (#"{"id":"00000000-0000-0000-0000-000000000001","title":"A","addedAt":"2026-11-29T13:14:15.123Z","revision":1}"#,
         #"has no boolean "isRead""#),
        (#"{"id":"00000000-0000-0000-0000-000000000001","title":"A","isRead":0,"addedAt":"2026-11-29T13:14:15.123Z","revision":1}"#,
         #"has no boolean "isRead""#),
        (#"{"id":"00000000-0000-0000-0000-000000000001","title":"A","isRead":false,"addedAt":"yesterday","revision":1}"#,
         #"has no valid "addedAt" (RFC 3339)"#),
        (#"{"id":"00000000-0000-0000-0000-000000000001","title":"A","isRead":false,"addedAt":"2023-02-29T00:00:00Z","revision":1}"#,
         #"has no valid "addedAt" (RFC 3339)"#),
        (#"{"id":"00000000-0000-0000-0000-000000000001","title":"A","isRead":false,"addedAt":"9999-12-31T23:59:59.999-01:00","revision":1}"#,
         #"has no valid "addedAt" (RFC 3339)"#),
        (#"{"id":"00000000-0000-0000-0000-000000000001","title":"A","isRead":false,"addedAt":"2026-11-29T13:14:15.123Z","revision":-1}"#,
         #"has no valid "revision" (a whole number from 0)"#),
        (#"{"id":"00000000-0000-0000-0000-000000000001","title":"A","isRead":false,"addedAt":"2026-11-29T13:14:15.123Z"}"#,
         #"has no valid "revision" (a whole number from 0)"#),
        (#"{"id":"00000000-0000-0000-0000-000000000001","title":"A","isRead":false,"addedAt":"2026-11-29T13:14:15.123Z","revision":2}"#,
         "has revision 2, above the list's 1"),
        ("true", "is not an object"),
    ])
    func badItem(json: String, problem: String) {
        // Format 1 names the item by its index, format 2 by its line; a good item comes first in both.
        let good = storedItem(id: "00000000-0000-0000-0000-000000000009", revision: 1)

        #expect(decodeError(file(revision: 1, items: good + "," + json))
            == .corrupt(path: Self.path, reason: "item 1 \(problem)"))
        #expect(decodeError(file2(revision: 1, [good, json]))
            == .corrupt(path: Self.path, reason: "line 3 \(problem)"))
    }
}

/// The fast item-line reader declines what it cannot judge; the snapshot then reads or refuses the line exactly as
/// the general JSON path does.
struct SnapshotFastPathTests {
    private func file(_ line: String) -> [UInt8] {
        Array((#"{"format":2,"revision":9,"items":1}"# + "\n" + line + "\n").utf8)
    }

    @Test("a stored title with surrounding spaces is refused on the fast path too")
    func untrimmedTitleIsCorrupt() {
        let line = #"{"id":"0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9","title":" A","isRead":false,"addedAt":"2026-11-29T13:14:15.123Z","revision":1}"#
        #expect(throws: StorageError.corrupt(path: "p", reason: #"line 2 has no valid "title""#)) {
            _ = try SnapshotCodec.decode(file(line), path: "p")
        }
    }

    @Test("an item revision above the list's is refused on the fast path too")
    func revisionAboveTheList() {
        let line = #"{"id":"0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9","title":"A","isRead":false,"addedAt":"2026-11-29T13:14:15.123Z","revision":10}"#
        #expect(throws: StorageError.corrupt(path: "p", reason: "line 2 has revision 10, above the list's 9")) {
            _ = try SnapshotCodec.decode(file(line), path: "p")
        }
    }

    @Test("a stored title over the byte limit for new titles is still read: it was valid when it was stored")
    func storedHeavyTitleLoads() throws {
        let heavy = "e" + String(repeating: "\u{301}", count: 20_000)
        let line = #"{"id":"0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9","title":"\#(heavy)","isRead":false,"addedAt":"2026-11-29T13:14:15.123Z","revision":1}"#
        let snapshot = try SnapshotCodec.decode(file(line), path: "p")
        #expect(snapshot.items.items.map(\.title) == [heavy])
    }

    @Test("a line with an escaped title is read by the general path, with the escape decoded")
    func escapedTitleReadsTheSame() throws {
        let line = #"{"id":"0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9","title":"A\"B \u00e9","isRead":true,"addedAt":"2026-11-29T13:14:15.123Z","revision":1}"#
        let snapshot = try SnapshotCodec.decode(file(line), path: "p")
        #expect(snapshot.items.items.map(\.title) == ["A\"B é"])
    }
}
