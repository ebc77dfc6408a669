import Foundation
@testable import ShelfCore
import Synchronization
import Testing

/// CRC-32C on every journal record and snapshot line, the list identity, and what a start reports of the cuts it
/// makes (protocol/STORAGE.md, "Checksums", "Identity", "Loading").
@Suite struct ChecksumTests {
    @Test("CRC-32C gives the standard check value for \"123456789\", and the same on every length around the 8-byte steps")
    func checkValue() {
        #expect(CRC32C.checksum(Array("123456789".utf8)[...]) == 0xE306_9283)
        #expect(CRC32C.checksum([UInt8]()[...]) == 0)
        // 32 zero bytes and 32 0xFF bytes: RFC 3720's test vectors for iSCSI's CRC-32C.
        #expect(CRC32C.checksum([UInt8](repeating: 0, count: 32)[...]) == 0x8A91_36AA)
        #expect(CRC32C.checksum([UInt8](repeating: 0xFF, count: 32)[...]) == 0x62A8_AB43)
        #expect(CRC32C.checksum((0..<32).map { UInt8($0) }[...]) == 0x46DD_794E)
        // Slices that do not start at index 0 (a line inside a file).
        #expect(CRC32C.checksum((Array("xx".utf8) + Array("123456789".utf8))[2...]) == 0xE306_9283)
    }

    /// CRC-32C one bit at a time, straight from the definition, to compare the table-driven one with.
    private func bitwiseCRC32C(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1 }
        }
        return crc ^ 0xFFFF_FFFF
    }

    @Test("CRC-32C of every length from 0 to 40 bytes, starting at each offset from 0 to 8 (unaligned words), equals the bitwise definition")
    func everyLengthAndOffset() {
        let bytes = (0..<64).map { UInt8(truncatingIfNeeded: $0 &* 151 &+ 7) }
        for offset in 0...8 {
            for length in 0...40 {
                let slice = bytes[offset..<(offset + length)]
                #expect(CRC32C.checksum(slice) == bitwiseCRC32C(slice), "offset \(offset), length \(length)")
            }
        }
    }

    @Test("the CPU's CRC-32C instruction and the software tables agree on every length from 0 to 300 at each offset from 0 to 8")
    func hardwareMatchesSoftware() {
        let bytes = (0..<320).map { UInt8(truncatingIfNeeded: $0 &* 197 &+ 11) }
        bytes.withUnsafeBufferPointer { all in
            for offset in 0...8 {
                for length in 0...300 {
                    let slice = UnsafeBufferPointer(rebasing: all[offset..<(offset + length)])
                    #expect(CRC32C.checksum(slice) == CRC32C.softwareChecksum(slice), "offset \(offset), length \(length)")
                }
            }
        }
        #expect(Array("123456789".utf8).withUnsafeBufferPointer { CRC32C.softwareChecksum($0) } == 0xE306_9283)
    }

    @Test("a sealed line ends with its CRC-32C as 8 lowercase hex digits, and checks as valid with the bytes before it as its body")
    func sealThenCheck() {
        var bytes = Array("prefix ".utf8) + Array(#"{"a":1}"#.utf8)
        LineChecksum.seal(&bytes, from: 7)
        #expect(String(decoding: bytes, as: UTF8.self)
            == #"prefix {"a":1,"crc":""# + String(format: "%08x", bitwiseCRC32C(Array(#"{"a":1"#.utf8)[...])) + #""}"#)
        guard case .valid(let body) = LineChecksum.check(bytes[7...]) else {
            Issue.record("the sealed line does not check")
            return
        }
        #expect(Array(body) == Array(#"{"a":1"#.utf8))
    }

    /// A store with three commits.
    private func threeCommits(_ files: StoreFiles) async throws {
        let store = FileListStore(path: files.path)
        _ = try await store.load()
        for n in UInt64(1)...3 { try await commit(store, addCommit(n, base: n - 1)).get() }
        _ = await settle(store)
    }

    /// The journal's bytes with `old` replaced by `new` (the same length) in line `line` (1 = the header).
    private func flip(_ files: StoreFiles, line: Int, _ old: String, _ new: String) throws {
        var lines = (files.journalBytes ?? []).split(separator: 0x0A, omittingEmptySubsequences: false).map(Array.init)
        let text = String(decoding: lines[line - 1], as: UTF8.self)
        #expect(text.contains(old))
        lines[line - 1] = Array(text.replacingOccurrences(of: old, with: new).utf8)
        try files.write(Array(lines.joined(separator: [0x0A])), to: files.journal)
    }

    @Test("a flipped byte in a journal record that still parses, followed by a good record, is refused naming the line and its offset; the files are left as they were")
    func flippedRecordInTheMiddle() async throws {
        let files = try StoreFiles()
        defer { files.remove() }
        try await threeCommits(files)
        // isRead false -> fals3 would not parse; "Book 2" -> "Book 3" still does.
        try flip(files, line: 3, "Book 2", "Book 3")
        let before = files.bytes(files.journal)
        let header = files.journalHeaderLength
        let second = Stored.added(1, revision: 1).utf8.count

        let error = await loadResult(FileListStore(path: files.path)).error

        #expect(error == .corruptJournal(path: files.journal, reason:
            "line 3, at byte \(header + second), does not match its checksum (CRC-32C), but line 4 after it is a valid record"))
        #expect(files.bytes(files.journal) == before)
    }

    @Test("a whole last record whose checksum fails is a torn tail: cut, and the cut reported with the revision it named")
    func flippedLastRecord() async throws {
        let files = try StoreFiles()
        defer { files.remove() }
        try await threeCommits(files)
        try flip(files, line: 4, "Book 3", "Book 4")
        let kept = files.journalHeaderLength + Stored.added(1, revision: 1).utf8.count + Stored.added(2, revision: 2).utf8.count
        let events = Mutex<[LoadEvent]>([])
        let store = FileListStore(path: files.path, loadEvents: { event in events.withLock { $0.append(event) } })

        let loaded = try await store.load()

        #expect(loaded.revision == 2)
        #expect(events.withLock { $0 } == [.cutTornTail(TornTailCut(
            path: files.journal, keptRevision: 2, keptRecords: 2, keptBytes: kept,
            droppedBytes: Stored.added(3, revision: 3).utf8.count, droppedLines: 1, firstDroppedLine: 4,
            reason: JournalFile.checksumFails, droppedRevision: 3))])
        #expect(files.length(files.journal) == kept)
    }

    @Test("a journal truncated in the middle of a record is cut, and the cut is reported; zeros written ahead are cut without a report")
    func truncatedJournalIsReported() async throws {
        let files = try StoreFiles()
        defer { files.remove() }
        try await threeCommits(files)
        var zerosOnly: [LoadEvent] = []
        do {
            let events = Mutex<[LoadEvent]>([])
            let store = FileListStore(path: files.path, loadEvents: { event in events.withLock { $0.append(event) } })
            _ = try await store.load()
            zerosOnly = events.withLock { $0 }
        }
        let bytes = try #require(files.journalBytes)
        try files.write(Array(bytes.dropLast(40)), to: files.journal)
        let events = Mutex<[LoadEvent]>([])
        let store = FileListStore(path: files.path, loadEvents: { event in events.withLock { $0.append(event) } })

        #expect(try await store.load().revision == 2)

        #expect(zerosOnly == [])
        let cut = try #require(events.withLock { $0 }.first)
        guard case .cutTornTail(let tail) = cut else { Issue.record("not a cut: \(cut)"); return }
        #expect(tail.droppedBytes == Stored.added(3, revision: 3).utf8.count - 40)
        #expect(tail.reason == JournalFile.cutShort)
        #expect(tail.droppedRevision == nil || tail.droppedRevision == 3)
    }

    @Test("a flipped byte in a snapshot line that still parses is refused naming the line and its offset")
    func flippedSnapshotLine() async throws {
        let files = try StoreFiles()
        defer { files.remove() }
        let identity = UUID.random()
        let items = (1...3).map { Stored.item(UInt64($0), "Book \($0)", revision: UInt64($0)) }
        let good = Stored.snapshot3(revision: 3, items, identity: identity)
        let fresh = files
        let damaged = good.replacingOccurrences(of: "Book 2", with: "Book 7")
        try fresh.write(damaged, to: fresh.path)
        let offset = good.split(separator: "\n").prefix(2).map { $0.utf8.count + 1 }.reduce(0, +)

        let error = await loadResult(FileListStore(path: fresh.path)).error

        #expect(error == .corrupt(path: fresh.path, reason:
            "line 3, at byte \(offset), does not match its checksum (CRC-32C): the file was damaged after it was written"))
        #expect(fresh.text(fresh.path) == damaged)
        try fresh.write(good, to: fresh.path)
        #expect(try await FileListStore(path: fresh.path).loadStored().identity == identity)
    }

    @Test("a store written by the previous shelfd (format 2 snapshot, journal without header or checksums) loads every item and the revision, and is rewritten as format 3 at once")
    func previousFormatFixture() async throws {
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/format2-store")
        let files = try StoreFiles()
        defer { files.remove() }
        for name in ["reading-list.json", "reading-list.json.journal"] {
            try files.write([UInt8](try Data(contentsOf: fixture.appendingPathComponent(name))), to: files.dir.path(name))
        }
        #expect(files.text(files.path)?.hasPrefix(#"{"format":2,"revision":1674,"items":2}"#) == true)

        let loaded = try await FileListStore(path: files.path).loadStored()

        func expected(_ id: String, _ title: String, _ isRead: Bool, _ added: String, _ revision: Revision) -> Item? {
            guard let id = UUID(wireText: id), let addedAt = Timestamp.parse(added) else { return nil }
            return Item(id: id, title: title, isRead: isRead, addedAt: addedAt, revision: revision)
        }
        #expect(loaded.snapshot.revision == 1809)
        #expect(loaded.snapshot.items.items == [
            expected("1dc6c8ba-2244-4714-bbd9-3ccd53d57bb4", "First kept", false, "2026-12-01T20:01:46.976Z", 1),
            expected("8a4c7b04-a2b2-48cd-adea-339e13709a43", "Dune", true, "2026-12-01T20:01:47.691Z", 1806),
            expected("fc13d488-4ba4-46b5-8295-ce1afbfe1b0e", "Solaris (Lem)", false, "2026-12-01T20:01:47.692Z", 1807),
            expected("098478d5-bb1d-4f26-9611-3cca1509188c", "Hyperion été / \"quoted\"", false, "2026-12-01T20:01:47.692Z", 1804),
            expected("3a2c8547-a327-411a-8759-82b79c6fd601", "Neuromancer", false, "2026-12-01T20:01:47.694Z", 1809),
        ].compactMap { $0 })
        #expect(files.text(files.path)?.hasPrefix(#"{"format":3,"revision":1809,"items":5,"list":"\#(loaded.identity.wireString)","#) == true)
        #expect(files.journalText == "")
        let again = try await FileListStore(path: files.path).loadStored()
        #expect(again == loaded, "the identity given at the upgrade outlives the restart")
    }

    @Test("a new store's identity is in its journal's header before any compaction, and the first compaction's snapshot keeps it")
    func identityOutlivesRestartsAndCompaction() async throws {
        let files = try StoreFiles()
        defer { files.remove() }
        let store = FileListStore(path: files.path, compactionMinimumBytes: 1)
        let identity = try await store.loadStored().identity
        #expect(files.identity == identity)
        #expect(try await FileListStore(path: files.path).loadStored().identity == identity)
        try await commit(store, addCommit(1, base: 0)).get()
        _ = await settle(store)
        #expect(try SnapshotCodec.decodeStored(try #require(files.bytes(files.path)), path: files.path).identity == identity)
        #expect(try await FileListStore(path: files.path).loadStored().identity == identity)
        #expect(try await MemoryListStore().loadStored().identity != MemoryListStore().loadStored().identity)
    }

    @Test("a journal whose header names another list than the snapshot is refused, naming both")
    func identityMismatch() async throws {
        let files = try StoreFiles()
        defer { files.remove() }
        let snapshotList = UUID.random()
        let journalList = UUID.random()
        try files.write(Stored.snapshot3(revision: 0, [], identity: snapshotList), to: files.path)
        try files.write(JournalFile.headerLine(journalList), to: files.journal)

        let error = await loadResult(FileListStore(path: files.path)).error

        #expect(error == .corruptJournal(path: files.journal, reason:
            "its header names list \(journalList.wireString), but the snapshot \(files.path) is list \(snapshotList.wireString)"))
    }

    @Test("a journal header of an unknown journal format is refused naming the format")
    func unknownJournalFormat() async throws {
        let files = try StoreFiles()
        defer { files.remove() }
        try files.write(Stored.sealed(#"{"journal":3,"list":"\#(UUID.random().wireString)"}"#) + "\n", to: files.journal)

        #expect(await loadResult(FileListStore(path: files.path)).error == .unknownFormat(path: files.journal, format: "3"))
    }

    /// Found by a storage attack run: an unmounted data volume had shelfd create the directory and serve an empty list.
    @Test("a snapshot link whose target's directory is missing is refused, naming the link and the target; nothing is created")
    func linkToMissingDirectory() async throws {
        let files = try StoreFiles()
        defer { files.remove() }
        let target = files.dir.path("unmounted/shelf/reading-list.json")
        try FileManager.default.createSymbolicLink(atPath: files.path, withDestinationPath: target)

        let error = await loadResult(FileListStore(path: files.path)).error

        #expect(error == .danglingLink(link: files.path, target: target))
        #expect(!files.exists(files.dir.path("unmounted")))
        #expect(files.names() == ["reading-list.json"])
    }

    /// Found by a storage attack run: the compaction's rename replaced a linked journal with a plain file.
    @Test("a journal that is a symbolic link stays one: a compaction rewrites the file it points to")
    func journalLinkIsFollowed() async throws {
        let files = try StoreFiles()
        defer { files.remove() }
        let target = files.dir.path("elsewhere.journal")
        try files.write([], to: target)
        try FileManager.default.createSymbolicLink(atPath: files.journal, withDestinationPath: target)
        let store = FileListStore(path: files.path, compactionMinimumBytes: 1)
        _ = try await store.load()
        // A commit appended while the compaction is held: the journal is then replaced (written aside, renamed).
        let release = store.holdCompactions()
        try await commit(store, addCommit(1, base: 0)).get()
        try await commit(store, addCommit(2, base: 1)).get()
        release()
        _ = await settle(store)

        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: files.journal) == target)
        #expect(try await FileListStore(path: files.path).load().items.count == 2)
    }
}
