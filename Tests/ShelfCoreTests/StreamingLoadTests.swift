import Foundation
@testable import ShelfCore
import Synchronization
import Testing

/// Start-up and compaction read the snapshot and the journal a block at a time (protocol/STORAGE.md, "Loading"):
/// with blocks of a few bytes, a line split between two blocks is read whole, and every rule of a whole-file read
/// holds with the same message — a bad checksum named by its line and its byte in the file, a repeated id refused,
/// the files left untouched, a torn tail cut and reported.
@Suite struct StreamingLoadTests {
    static let identity = UUID(uuidString: "5E1F0000-0000-4000-8000-000000000001") ?? UUID()

    /// Items `Book 1` ... `Book count` as stored, Book n at revision n.
    private static func items(_ count: Int) -> [String] {
        (1...count).map { Stored.item(UInt64($0), "Book \($0)", revision: UInt64($0)) }
    }

    /// `text` with its first `old` replaced by `new`.
    private static func replacing(_ old: String, with new: String, in text: String) throws -> String {
        let range = try #require(text.range(of: old))
        return text.replacingCharacters(in: range, with: new)
    }

    /// The outcome of decoding `text` with `blockBytes` (nil: all at once).
    private static func decoded(_ text: String, blockBytes: Int?) -> Result<SnapshotCodec.Stored, StorageError> {
        Result { () throws(StorageError) in
            try SnapshotCodec.decodeStored(Array(text.utf8), path: "/s", blockBytes: blockBytes)
        }
    }

    /// Snapshots good and bad, each decoded at every block size from 1 byte to past its length.
    static let files: [(name: String, text: String)] = {
        let three = Stored.snapshot3(revision: 3, items(3), identity: identity)
        let line3 = Stored.sealed(Stored.item(2, "Book 2", revision: 2))
        let duplicate = Stored.snapshot3(
            revision: 3, [items(3)[0], items(3)[1], Stored.item(1, "Book 1 again", revision: 3)], identity: identity)
        return [
            ("format 3", three),
            ("format 2", Stored.snapshot(revision: 3, items(3))),
            ("format 1", #"{"format":1,"revision":1,"items":[{"id":"00000000-0000-0000-0000-000000000001","title":"A","isRead":false,"addedAt":"2026-01-02T03:04:05Z","revision":1}]}"#),
            ("format 3, a title flipped in line 3", three.replacingOccurrences(of: line3, with: line3.replacingOccurrences(of: "Book 2", with: "Book 9"))),
            ("format 3, the last line without its LF", String(three.dropLast())),
            ("format 3, an id twice", duplicate),
            ("format 2, the header promises 4", Stored.snapshot(revision: 3, items(3)).replacingOccurrences(of: #""items":3"#, with: #""items":4"#)),
            ("format 2, line 3 not JSON", Stored.snapshot(revision: 3, [items(3)[0], "{]", items(3)[2]])),
            ("format 3, a header alone without its LF", String(Stored.snapshot3(revision: 0, [], identity: identity).dropLast())),
            ("format 9", #"{"format":9}"# + "\n"),
            ("empty", ""),
        ]
    }()

    @Test("every snapshot, good or bad, decodes read a block at a time exactly as read whole, at every block size", arguments: files.map(\.name))
    func everyBlockSize(name: String) throws {
        let text = try #require(Self.files.first { $0.name == name }).text
        let whole = Self.decoded(text, blockBytes: nil)

        for blockBytes in 1...(text.utf8.count + 1) {
            #expect(Self.decoded(text, blockBytes: blockBytes) == whole, "block of \(blockBytes) bytes")
        }
    }

    @Test("the bad snapshots are refused with the messages of a whole-file read")
    func exactRefusals() throws {
        let texts = Dictionary(uniqueKeysWithValues: Self.files.map { ($0.name, $0.text) })
        let header = Stored.sealed(#"{"format":3,"revision":3,"items":3,"list":"\#(Self.identity.wireString)"}"#).utf8.count + 1
        let line2 = Stored.sealed(Self.items(1)[0]).utf8.count + 1
        let expected: [(String, StorageError)] = [
            ("format 3, a title flipped in line 3", .corrupt(path: "/s", reason: SnapshotCodec.checksumMismatch(line: 3, offset: header + line2))),
            ("format 3, the last line without its LF", .corrupt(path: "/s", reason: SnapshotCodec.cutShort)),
            ("format 3, an id twice", .duplicateID(path: "/s", id: SequentialIDs.id(1).wireString)),
            ("format 2, the header promises 4", .corrupt(path: "/s", reason: "the header promises 4 items but the file holds 3")),
            ("format 2, line 3 not JSON", .corrupt(path: "/s", reason: "line 3: unexpected character ']' at byte 1")),
            ("format 3, a header alone without its LF", .corrupt(path: "/s", reason: SnapshotCodec.cutShort)),
            ("format 9", .unknownFormat(path: "/s", format: "9")),
            ("empty", .corrupt(path: "/s", reason: "not JSON: unexpected end of input")),
        ]
        for (name, error) in expected {
            #expect(Self.decoded(try #require(texts[name]), blockBytes: 7).error == error, "\(name)")
        }
    }

    @Test("a store whose snapshot and journal lines are split across 40-byte blocks loads them whole")
    func lineSplitAcrossBlocks() async throws {
        let files = try StoreFiles()
        defer { files.remove() }
        let snapshot = Stored.snapshot3(revision: 3, Self.items(3), identity: Self.identity)
        // The header is over 80 bytes, so the 40-byte blocks cut it twice, and every line after it (over 140) too.
        #expect(try #require(Array(snapshot.utf8).firstIndex(of: 0x0A)) > 80)
        try files.write(snapshot, to: files.path)
        try files.write(String(decoding: JournalFile.headerLine(Self.identity), as: UTF8.self)
            + Stored.added(4, revision: 4) + Stored.added(5, revision: 5), to: files.journal)

        let loaded = try await FileListStore(path: files.path, readBlockBytes: 40).load()

        #expect(loaded.revision == 5)
        #expect(loaded.items.items.map(\.title) == (1...5).map { "Book \($0)" })
        #expect(files.text(files.path) == snapshot, "no compaction at start: the journal is under 1 MiB")
    }

    @Test("a snapshot line whose checksum fails, blocks after the start, is refused naming its line and its byte in the file; nothing is touched")
    func checksumMismatchBlocksIn() async throws {
        let files = try StoreFiles()
        defer { files.remove() }
        let items = Self.items(6)
        let good = Stored.snapshot3(revision: 6, items, identity: Self.identity)
        let line6 = Stored.sealed(items[4])
        let bad = try Self.replacing(line6, with: line6.replacingOccurrences(of: "Book 5", with: "Book 8"), in: good)
        try files.write(bad, to: files.path)
        // Lines 1-5: the header and Book 1 ... Book 4, each with its LF.
        let offset = bad.components(separatedBy: "\n").prefix(5).map { $0.utf8.count + 1 }.reduce(0, +)

        let error = await loadResult(FileListStore(path: files.path, readBlockBytes: 64)).error

        #expect(error == .corrupt(path: files.path, reason: SnapshotCodec.checksumMismatch(line: 6, offset: offset)))
        #expect(offset > 5 * 64, "the line starts past the fifth block")
        #expect(files.text(files.path) == bad)
        #expect(files.names() == ["reading-list.json"], "no journal created, the lock removed")
    }

    @Test("an id that comes back in a later block is refused as a repeated id, and nothing is touched")
    func duplicateAcrossBlocks() async throws {
        let files = try StoreFiles()
        defer { files.remove() }
        let lines = Self.items(4) + [Stored.item(2, "Book 2 again", revision: 4)]
        let text = Stored.snapshot3(revision: 5, lines, identity: Self.identity)
        try files.write(text, to: files.path)

        let error = await loadResult(FileListStore(path: files.path, readBlockBytes: 50)).error

        #expect(error == .duplicateID(path: files.path, id: SequentialIDs.id(2).wireString))
        #expect(files.text(files.path) == text)
        #expect(files.names() == ["reading-list.json"])
    }

    @Test("a torn journal tail read in 30-byte blocks is cut and reported exactly as read whole")
    func tornTailInSmallBlocks() async throws {
        let files = try StoreFiles()
        defer { files.remove() }
        let header = String(decoding: JournalFile.headerLine(Self.identity), as: UTF8.self)
        let whole = header + (1...3).map { Stored.added(UInt64($0), revision: UInt64($0)) }.joined()
        let torn = String(Stored.added(4, revision: 4).dropLast(25))
        try files.write(whole + torn, to: files.journal)
        let events = Mutex<[LoadEvent]>([])

        let store = FileListStore(path: files.path, readBlockBytes: 30, loadEvents: { event in events.withLock { $0.append(event) } })
        let loaded = try await store.load()

        #expect(loaded.revision == 3)
        #expect(events.withLock { $0 } == [.cutTornTail(TornTailCut(
            path: files.journal, keptRevision: 3, keptRecords: 3, keptBytes: whole.utf8.count,
            droppedBytes: torn.utf8.count, droppedLines: 1, firstDroppedLine: 5, reason: JournalFile.cutShort,
            droppedRevision: nil))])
        #expect(files.text(files.journal) == whole)
    }

    @Test("a compaction with 7-byte blocks reads the files back and copies the records appended meanwhile whole; the list reloads")
    func compactionInSmallBlocks() async throws {
        let files = try StoreFiles()
        defer { files.remove() }
        try files.write(Stored.snapshot3(revision: 2, Self.items(2), identity: Self.identity), to: files.path)
        let store = FileListStore(path: files.path, compactionMinimumBytes: 700, preallocationBytes: 0, readBlockBytes: 7)
        #expect(try await store.load().revision == 2)
        let release = store.holdCompactions()
        // Records 3...6 outgrow 700 bytes, so the compaction is due after the fourth; 7 and 8 come while it is held.
        for n in UInt64(3)...8 { try await commit(store, addCommit(n, base: n - 1)).get() }

        release()
        _ = await settle(store)

        let snapshot = try SnapshotCodec.decode(try #require(files.bytes(files.path)), path: files.path)
        #expect(snapshot.revision == 6)
        #expect(snapshot.items.items.map(\.title) == (1...6).map { "Book \($0)" })
        #expect(files.text(files.journal) == String(decoding: JournalFile.headerLine(Self.identity), as: UTF8.self)
            + Stored.added(7, revision: 7) + Stored.added(8, revision: 8))
        let reloaded = try await FileListStore(path: files.path, readBlockBytes: 7).load()
        #expect(reloaded.items.items.map(\.title) == (1...8).map { "Book \($0)" })
    }

    @Test("a compaction writes the snapshot in sync slices of whole lines: the slices joined are the whole encoding")
    func encodingSlices() throws {
        let list = try snapshot(revision: 40, (1...40).map { item(UInt64($0), "Book \($0)", revision: UInt64($0)) })
        let whole = SnapshotCodec.encode(list, identity: Self.identity)
        var slices = SnapshotCodec.Slices(list, identity: Self.identity, sliceBytes: 500)
        var joined: [UInt8] = []
        var count = 0

        while let slice = slices.next() {
            #expect(slice.last == 0x0A, "a slice ends with a whole line")
            #expect(slice.count < 500 + 200, "a slice stops at the first line past 500 bytes")
            joined += slice
            count += 1
        }

        #expect(joined == whole)
        #expect(count >= whole.count / 700 && count > 1)
    }
}
