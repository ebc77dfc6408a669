import Foundation
import ShelfJSON
@testable import ShelfCore
import Testing

/// `PlainRecord`, the journal's fast reader, against the general one (`JSONParser` + `RevisionedChange(json:)`):
/// it must read what the writer writes for a plain item, and never accept a line the general reader reads
/// otherwise or refuses.
@Suite struct PlainRecordTests {
    private static func general(_ line: ArraySlice<UInt8>) -> RevisionedChange? {
        (try? JSONParser.parse(line)).flatMap(RevisionedChange.init(json:))
    }

    /// A sealed journal line for `change`, as the store writes it (no LF).
    private static func sealed(_ change: RevisionedChange) -> [UInt8] {
        var bytes: [UInt8] = []
        change.appendJSON(to: &bytes)
        LineChecksum.seal(&bytes, from: 0)
        return bytes
    }

    private static func unsealed(_ change: RevisionedChange) -> [UInt8] {
        var bytes: [UInt8] = []
        change.appendJSON(to: &bytes)
        return bytes
    }

    private static let changes: [RevisionedChange] = {
        let date = Timestamp.truncated(Date(timeIntervalSince1970: 1_764_633_600.123))
        func item(_ n: UInt64, _ title: String, read: Bool = false, revision: Revision? = nil) -> Item {
            Item(id: SequentialIDs.id(n), title: title, isRead: read, addedAt: date, revision: revision ?? n)
        }
        return [
            RevisionedChange(revision: 1, change: .added(item(1, "Dune"))),
            RevisionedChange(revision: 2, change: .updated(item(1, "Dune Messiah", read: true, revision: 2))),
            RevisionedChange(revision: 3, change: .removed(SequentialIDs.id(1))),
            RevisionedChange(revision: 0, change: .added(item(2, "0", revision: 0))),
            RevisionedChange(revision: 10, change: .added(item(3, "Café 東京 📚 e\u{301}", revision: 10))),
            RevisionedChange(revision: .max - 1, change: .added(item(4, "x", revision: .max - 1))),
            RevisionedChange(revision: 12, change: .added(item(5, String(repeating: "long ", count: 400), revision: 12))),
        ]
    }()

    @Test("every plain record the writer makes is read by the fast path, sealed or not, exactly as the general reader reads it")
    func readsWhatTheWriterWrites() throws {
        for change in Self.changes {
            let line = Self.sealed(change)
            guard case .valid(let body) = LineChecksum.check(line[...]) else {
                Issue.record("the sealed line does not check")
                continue
            }
            #expect(PlainRecord.decode(body, sealed: true) == change)
            #expect(PlainRecord.decode(Self.unsealed(change)[...], sealed: false) == change)
            #expect(Self.general(line[...]) == change)
        }
    }

    @Test("records outside the layout are left to the general reader: escapes, optional members, spaces, another order")
    func leavesTheRestToTheGeneralReader() throws {
        let date = Date(timeIntervalSince1970: 0)
        let others = [
            RevisionedChange(revision: 1, change: .added(Item(
                id: SequentialIDs.id(1), title: #"a "quoted" \ title"#, isRead: false, addedAt: date, revision: 1))),
            RevisionedChange(revision: 2, change: .added(Item(
                id: SequentialIDs.id(2), title: "t", isRead: false, addedAt: date, revision: 2, author: "A", tags: ["x"]))),
        ]
        for change in others {
            #expect(PlainRecord.decode(Self.unsealed(change)[...], sealed: false) == nil)
        }
        let id = SequentialIDs.id(1).wireString
        for text in [
            #"{"revision":1, "change":{"kind":"removed","id":"\#(id)"}}"#,
            #"{"change":{"kind":"removed","id":"\#(id)"},"revision":1}"#,
            #"{"revision":01,"change":{"kind":"removed","id":"\#(id)"}}"#,
            #"{"revision":1.0,"change":{"kind":"removed","id":"\#(id)"}}"#,
            #"{"revision":1e2,"change":{"kind":"removed","id":"\#(id)"}}"#,
            #"{"revision":18446744073709551616,"change":{"kind":"removed","id":"\#(id)"}}"#,
            #"{"revision":1,"change":{"kind":"removed","id":"\#(id)"}} "#,
            #"{"revision":1,"change":{"kind":"removed","id":"\#(id)"}"#,
        ] {
            #expect(PlainRecord.decode(Array(text.utf8)[...], sealed: false) == nil, "\(text)")
        }
    }

    @Test("no single-byte change or deletion of a record makes the fast path read what the general reader reads otherwise or refuses")
    func neverDisagreesWithTheGeneralReader() {
        let replacements: [UInt8] = [0x00, 0x09, 0x20, 0x22, 0x2C, 0x2D, 0x2E, 0x30, 0x31, 0x39, 0x3A, 0x41, 0x5C, 0x61, 0x65,
                                     0x66, 0x7B, 0x7D, 0x7F, 0x80, 0xC3, 0xE6, 0xED, 0xF0, 0xFF]
        var accepted = 0
        for change in Self.changes {
            let line = Self.unsealed(change)
            for position in line.indices {
                var variants: [[UInt8]] = []
                for byte in replacements where byte != line[position] {
                    var changed = line
                    changed[position] = byte
                    variants.append(changed)
                }
                var shorter = line
                shorter.remove(at: position)
                variants.append(shorter)
                for variant in variants {
                    guard let fast = PlainRecord.decode(variant[...], sealed: false) else { continue }
                    accepted += 1
                    #expect(Self.general(variant[...]) == fast, "\(String(decoding: variant, as: UTF8.self))")
                }
            }
        }
        // Changed digits, titles and read states are still plain records: the property was checked on many.
        #expect(accepted > 1000)
    }
}
