import Foundation
@testable import ShelfCore
import Synchronization
import Testing

/// The log-structured `FileListStore` (protocol/STORAGE.md): commits appended to `<path>.journal` and replayed on
/// load, torn tails cut, corrupt journals refused, compaction into a format 2 snapshot (and its failures), group
/// commit; plus `ListSnapshot.apply`, which every store uses to apply a commit.
/// Each test works in a fresh directory under the system temp directory and removes it at the end.
struct JournalStoreTests {
    /// Book 1 and Book 2, added at revisions 1 and 2: the journal's first two records.
    static let twoRecords = Stored.added(1, revision: 1) + Stored.added(2, revision: 2)

    private func twoItems() throws -> ListSnapshot {
        try snapshot(revision: 2, [item(1, "Book 1", revision: 1), item(2, "Book 2", revision: 2)])
    }

    /// What a store compacting at `minimum` bytes should have on disk, by the rule in protocol/STORAGE.md: the
    /// journal is compacted once it is longer than max(snapshot, minimum); a failed compaction is retried once the
    /// journal has doubled.
    private struct Expected {
        let minimum: Int
        var list: ListSnapshot
        /// The snapshot file's text (nil: no file).
        var snapshot: String?
        /// The journal's text.
        var journal = ""
        var compactAt: Int
        /// The store's identity, which its snapshots and journal header name.
        let identity: UUID?
        /// The journal's header line: its length counts towards compaction.
        static let headerBytes = JournalFile.headerLine(UUID()).count

        init(minimum: Int, list: ListSnapshot = ListSnapshot(), snapshot: String? = nil, identity: UUID?) {
            self.minimum = minimum
            self.list = list
            self.snapshot = snapshot
            self.identity = identity
            compactAt = max(snapshot?.utf8.count ?? 0, minimum)
        }

        /// `list` as a format 3 snapshot, written out by hand.
        var listText: String {
            Stored.snapshot3(revision: list.revision, list.items.items.map(Stored.item(of:)), identity: identity)
        }

        /// Whether appending `line` makes a compaction due.
        func due(after line: String) -> Bool { Self.headerBytes + journal.utf8.count + line.utf8.count > compactAt }

        /// Appends `line`, and compacts if due (or records the failed attempt).
        mutating func append(_ line: String, compactionFails: Bool) {
            let due = due(after: line)
            journal += line
            guard due else { return }
            if compactionFails {
                compactAt = (Self.headerBytes + journal.utf8.count) * 2
            } else {
                let text = listText
                snapshot = text
                journal = ""
                compactAt = max(text.utf8.count, minimum)
            }
        }
    }

    /// Commits `add n` on top of `expected`, waits until the store is idle (compaction included), updates
    /// `expected` and checks the files against it. When `failing` is given and the commit makes a compaction due,
    /// that step is armed inside the commit's completion: after the append, before the compaction.
    /// - Returns: whether a compaction was due after this commit.
    private func addAndSettle(
        _ n: UInt64, _ store: FileListStore, _ files: StoreFiles, _ expected: inout Expected,
        failing: (FileFaults, FileFaults.Step)? = nil
    ) async throws -> Bool {
        let change = addCommit(n, base: expected.list.revision)
        let line = Stored.added(n, revision: change.resultingRevision)
        let due = expected.due(after: line)
        let arming = due ? failing : nil
        let result: Result<Void, StorageError> = await withCheckedContinuation { continuation in
            store.enqueue(change) { result in
                if let (faults, step) = arming { faults.arm(step) }
                continuation.resume(returning: result)
            }
        }
        try result.get()
        try expected.list.apply(change, path: "expected")
        expected.append(line, compactionFails: arming != nil)
        #expect(await settle(store) == .baseMismatch(expected: .max, actual: expected.list.revision))
        #expect(files.text(files.path) == expected.snapshot, "after commit \(n)")
        #expect(files.journalText == expected.journal, "after commit \(n)")
        #expect(!files.exists(files.temp), "after commit \(n)")
        return due
    }

    // MARK: - Appending and replaying

    @Test("each commit appends one line per change to the journal, and a reload replays them exactly")
    func appendAndReplay() async throws {
        let files = try StoreFiles()
        defer { files.remove() }
        let store = FileListStore(path: files.path)
        _ = try await store.load()
        let read = item(1, "Book 1", isRead: true, revision: 3)
        let quoted = Item(
            id: SequentialIDs.id(3), title: "Quotes \" and \\ / ünïcødé 📚", isRead: false,
            addedAt: Timestamp.truncated(Date(timeIntervalSince1970: 1_800_000_000.002_9)), revision: 5)

        try await commit(store, addCommit(1, base: 0)).get()
        try await commit(store, addCommit(2, base: 1)).get()
        try await commit(store, StoreCommit(generation: 0, base: 2, changes: [
            RevisionedChange(revision: 3, change: .updated(read)),
            RevisionedChange(revision: 4, change: .removed(SequentialIDs.id(2))),
        ])).get()
        try await commit(store, StoreCommit(generation: 7, base: 4, changes: [
            RevisionedChange(revision: 5, change: .added(quoted)),
        ])).get()

        #expect(files.journalText == Self.twoRecords
            + Stored.record(3, "updated", Stored.item(1, "Book 1", isRead: true, revision: 3))
            + Stored.removal(4, 2)
            + Stored.record(5, "added", Stored.item(3, #"Quotes \" and \\ / ünïcødé 📚"#, revision: 5,
                                                    addedAt: "2027-01-15T08:00:00.002Z")))
        #expect(!files.exists(files.path))

        let reloaded = try await FileListStore(path: files.path).load()

        #expect(reloaded == (try snapshot(revision: 5, [read, quoted])))
        #expect(reloaded.items.items.map(\.addedAt) == [read.addedAt, quoted.addedAt])
        #expect(reloaded.items.items.map { Timestamp.format($0.addedAt) }
            == [FixedClock.startText, "2027-01-15T08:00:00.002Z"])
    }

    // MARK: - Torn tails and corruption

    static let tornTails: [(String, [UInt8])] = [
        ("garbage without a newline", Array("garbage".utf8)),
        ("half a record", Array(#"{"revision":3,"change":{"kind":"added","it"#.utf8)),
        ("NUL bytes", [UInt8](repeating: 0, count: 16)),
        ("a whole record without its newline", Array(Stored.added(3, revision: 3).dropLast().utf8)),
        ("a last line that is not a record", Array((#"{"revision":3}"# + "\n").utf8)),
        ("half a record, a newline, then NUL bytes", Array((#"{"revision":3,"cha"# + "\n").utf8) + [0, 0, 0, 0]),
    ]

    @Test("a torn last record is tolerated on load and cut off, and the next commit appends cleanly", arguments: tornTails)
    func tornTail(what: String, tail: [UInt8]) async throws {
        let files = try StoreFiles()
        defer { files.remove() }
        let valid = Array(Self.twoRecords.utf8)
        try files.write(JournalFile.headerLine(UUID.random()) + valid + tail, to: files.journal)
        let store = FileListStore(path: files.path)

        let loaded = try await store.load()

        #expect(loaded == (try twoItems()), "\(what)")
        #expect(files.journalAfterHeader == valid, "\(what)")
        #expect(files.length(files.journal) == valid.count + files.journalHeaderLength)
        try await commit(store, addCommit(3, base: 2)).get()
        #expect(files.journalText == Self.twoRecords + Stored.added(3, revision: 3), "\(what)")
        let reloaded = try await FileListStore(path: files.path).load()
        #expect(reloaded.revision == 3)
        #expect(reloaded.items.items.map(\.title) == ["Book 1", "Book 2", "Book 3"])
    }

    @Test("a journal that is nothing but a torn record loads as an empty list and is emptied")
    func tornOnly() async throws {
        let files = try StoreFiles()
        defer { files.remove() }
        try files.write([0, 0, 0] + Array(#"{"revision":1,"#.utf8), to: files.journal)

        let loaded = try await FileListStore(path: files.path).load()

        #expect(loaded == ListSnapshot())
        #expect(files.journalAfterHeader == [])
    }

    @Test("a bad record followed by a good one is refused as corrupt, naming the journal and the line; nothing is touched",
          arguments: [
              ("garbage", Stored.added(1, revision: 1) + "garbage\n" + Stored.added(2, revision: 2), 2, 3),
              ("NUL bytes", Stored.added(1, revision: 1) + "\0\0\0\0\n" + Stored.added(2, revision: 2), 2, 3),
              ("an empty line", Stored.added(1, revision: 1) + "\n" + Stored.added(2, revision: 2), 2, 3),
              ("an unknown kind", Stored.added(1, revision: 1)
                  + #"{"revision":2,"change":{"kind":"renamed","id":"00000000-0000-0000-0000-000000000001"}}"# + "\n"
                  + Stored.added(2, revision: 2), 2, 3),
              ("a record without its revision", Stored.added(1, revision: 1)
                  + #"{"change":{"kind":"removed","id":"00000000-0000-0000-0000-000000000001"}}"# + "\n"
                  + Stored.added(2, revision: 2), 2, 3),
              ("a bad first line", "{}\n" + Stored.added(1, revision: 1), 1, 2),
              ("two bad lines, then a good one and a torn tail", Stored.added(1, revision: 1) + #"{"revision":2,"ch"# + "\n"
                  + "\0\0\n" + Stored.added(2, revision: 2) + #"{"revision":3"#, 2, 4),
          ])
    func corruptMiddle(what: String, journal: String, bad: Int, good: Int) async throws {
        let files = try StoreFiles()
        defer { files.remove() }
        try files.write(journal, to: files.journal)

        let error = await loadResult(FileListStore(path: files.path)).error

        let reason = "line \(bad) is not a valid record, but line \(good) after it is"
        #expect(error == .corruptJournal(path: files.journal, reason: reason), "\(what)")
        #expect(error?.description == files.journal + " is not a valid Shelf list (" + reason + "); it was left untouched"
            + " — restore it from a backup, or keep only the lines before the one named (moving the journal away loses"
            + " every change since the last compaction)")
        #expect(files.text(files.journal) == journal)
        #expect(files.names() == ["reading-list.json.journal"])
    }

    @Test("a journal whose records do not follow on from the list is refused, naming the revision; nothing is touched",
          arguments: [
              ("a revision skipped", nil, Stored.added(1, revision: 1) + Stored.added(3, revision: 3),
               "the record for revision 3 does not follow revision 1"),
              ("a first record that is not revision 1", nil, Stored.added(2, revision: 2),
               "the record for revision 2 does not follow revision 0"),
              ("the same item added twice", nil,
               Stored.added(1, revision: 1) + Stored.record(2, "added", Stored.item(1, "Again", revision: 2)),
               "the record for revision 2 does not fit the list at revision 1"),
              ("an update of a missing item", nil,
               Stored.added(1, revision: 1) + Stored.record(2, "updated", Stored.item(5, "Gone", revision: 2)),
               "the record for revision 2 does not fit the list at revision 1"),
              ("a removal of a missing item", nil, Stored.added(1, revision: 1) + Stored.removal(2, 5),
               "the record for revision 2 does not fit the list at revision 1"),
              ("an update that moves the item's addedAt", nil,
               Stored.added(1, revision: 1)
                   + Stored.record(2, "updated", Stored.item(1, "Book 1", revision: 2, addedAt: "2026-01-02T03:04:06.000Z")),
               "the record for revision 2 changes the addedAt of item \(SequentialIDs.id(1).wireString)"),
              ("a gap after the snapshot",
               Stored.snapshot(revision: 2, [Stored.item(1, "Book 1", revision: 1), Stored.item(2, "Book 2", revision: 2)]),
               twoRecords + Stored.added(4, revision: 4), "the record for revision 4 does not follow revision 2"),
          ] as [(String, String?, String, String)])
    func gap(what: String, snapshotText: String?, journal: String, reason: String) async throws {
        let files = try StoreFiles()
        defer { files.remove() }
        if let snapshotText { try files.write(snapshotText, to: files.path) }
        try files.write(journal, to: files.journal)

        let error = await loadResult(FileListStore(path: files.path)).error

        #expect(error == .corruptJournal(path: files.journal, reason: reason), "\(what)")
        #expect(files.text(files.journal) == journal)
        #expect(files.text(files.path) == snapshotText)
        #expect(files.names() == (snapshotText == nil ? [] : ["reading-list.json"]) + ["reading-list.json.journal"])
    }

    @Test("records at or below the snapshot's revision are skipped: a crash between compaction's rename and the journal's truncation loses nothing",
          arguments: [3, 4, 5] as [Revision])
    func recordsCoveredBySnapshot(journalUpTo: Revision) async throws {
        let files = try StoreFiles()
        defer { files.remove() }
        // The history: add 1, add 2, mark 1 read, remove 2, add 3. The snapshot was compacted at revision 3.
        let read = item(1, "Book 1", isRead: true, revision: 3)
        let history = [
            addCommit(1, base: 0), addCommit(2, base: 1),
            StoreCommit(generation: 0, base: 2, changes: [RevisionedChange(revision: 3, change: .updated(read))]),
            StoreCommit(generation: 0, base: 3, changes: [RevisionedChange(revision: 4, change: .removed(SequentialIDs.id(2)))]),
            addCommit(3, base: 4),
        ]
        let lines = [
            Stored.added(1, revision: 1), Stored.added(2, revision: 2),
            Stored.record(3, "updated", Stored.item(1, "Book 1", isRead: true, revision: 3)), Stored.removal(4, 2),
            Stored.added(3, revision: 5),
        ]
        let identity = UUID.random()
        try files.write(Stored.snapshot3(revision: 3, [
            Stored.item(1, "Book 1", isRead: true, revision: 3), Stored.item(2, "Book 2", revision: 2),
        ], identity: identity), to: files.path)
        let journal = lines.prefix(Int(journalUpTo)).joined()
        let header = String(decoding: JournalFile.headerLine(identity), as: UTF8.self)
        try files.write(header + journal, to: files.journal)
        var expected = ListSnapshot()
        for change in history.prefix(Int(journalUpTo)) { try expected.apply(change, path: "expected") }
        let store = FileListStore(path: files.path)

        let loaded = try await store.load()

        #expect(loaded == expected)
        #expect(loaded.revision == journalUpTo)
        #expect(files.text(files.journal) == header + journal)
        try await commit(store, addCommit(4, base: journalUpTo)).get()
        #expect(files.journalText == journal + Stored.added(4, revision: journalUpTo + 1))
        try expected.apply(addCommit(4, base: journalUpTo), path: "expected")
        #expect(try await FileListStore(path: files.path).load() == expected)
    }

    // MARK: - Compaction

    @Test("once the journal outgrows max(snapshot, minimum), it is compacted into a format 3 snapshot and emptied")
    func compaction() async throws {
        let files = try StoreFiles()
        defer { files.remove() }
        let store = FileListStore(path: files.path, compactionMinimumBytes: 1024)
        _ = try await store.load()
        var expected = Expected(minimum: 1024, identity: files.identity)
        var compactedAt: [UInt64] = []

        for n in UInt64(1)...40 {
            if try await addAndSettle(n, store, files, &expected) { compactedAt.append(n) }
        }

        // Records of 194 to 197 bytes after a 77-byte header; snapshots of ~1,050, 2,000 and 3,500 bytes push the
        // next compaction out.
        #expect(compactedAt == [5, 10, 18, 32])
        let text = try #require(files.text(files.path))
        #expect(text.hasPrefix(#"{"format":3,"revision":32,"items":32,"list":""#))
        #expect(text.split(separator: "\n").count == 33)
        let identity = try #require(try SnapshotCodec.decodeStored(Array(text.utf8), path: files.path).identity)
        #expect(text == String(decoding: SnapshotCodec.encode(try snapshot(revision: 32,
            (1...32).map { item($0, "Book \($0)", revision: $0) }), identity: identity), as: UTF8.self))
        #expect(files.journalText == (UInt64(33)...40).map { Stored.added($0, revision: $0) }.joined())
        #expect(try await FileListStore(path: files.path).load() == expected.list)
    }

    @Test("a record that does not fit the list is never compacted away: the snapshot is kept and a reload refuses the journal")
    func misfitRecordIsNotCompacted() async throws {
        let files = try StoreFiles()
        defer { files.remove() }
        let store = FileListStore(path: files.path, compactionMinimumBytes: 1024)
        _ = try await store.load()
        // Six records of ~177 bytes outgrow the 1 KiB minimum: the first compaction, after which the store keeps
        // the list in memory for the next one.
        for n in UInt64(1)...6 { try await commit(store, addCommit(n, base: n - 1)).get() }
        _ = await settle(store)
        let compacted = try #require(files.text(files.path))
        let compactedRevision = try SnapshotCodec.decode(Array(compacted.utf8), path: files.path).revision
        #expect(compacted.hasPrefix(#"{"format":3,"#) && compactedRevision >= 5)
        // A removal of an id the list does not hold: the list never sends one, but the store only checks the base.
        let missing = RevisionedChange(revision: 7, change: .removed(item(99, "x", revision: 1).id))
        try await commit(store, StoreCommit(generation: 0, base: 6, changes: [missing])).get()
        for n in UInt64(8)...40 { try await commit(store, addCommit(n, base: n - 1)).get() }
        _ = await settle(store)

        // Compaction was due again many times over, and each attempt failed on reading the files back.
        #expect(files.text(files.path) == compacted)
        #expect(files.journalText?.split(separator: "\n").count == 40 - Int(compactedRevision))
        await #expect(throws: StorageError.self) { _ = try await FileListStore(path: files.path).load() }
    }

    @Test("a compaction that fails does not fail the commit, is reported, leaves a loadable consistent pair, and a later one succeeds",
          arguments: [FileFaults.Step.write, .fsync, .rename, .syncDirectory], [false, true])
    func failedCompaction(step: FileFaults.Step, afterEarlierCompaction: Bool) async throws {
        let files = try StoreFiles()
        defer { files.remove() }
        let faults = FileFaults()
        let reported = Mutex<[CompactionEvent]>([])
        let store = FileListStore(
            path: files.path, faults: faults, compactionMinimumBytes: 1024,
            compactionEvents: { event in reported.withLock { $0.append(event) } })
        _ = try await store.load()
        var expected = Expected(minimum: 1024, identity: files.identity)
        var n: UInt64 = 0
        if afterEarlierCompaction {
            repeat { n += 1 } while try await !addAndSettle(n, store, files, &expected)
        }
        let snapshotBefore = files.text(files.path)

        repeat { n += 1 } while try await !addAndSettle(n, store, files, &expected, failing: (faults, step))
        let failedAt = n

        // The old snapshot (or none) and the whole journal: still a consistent pair.
        #expect(files.text(files.path) == snapshotBefore)
        #expect(try await FileListStore(path: files.path).load() == expected.list)

        repeat { n += 1 } while try await !addAndSettle(n, store, files, &expected)

        #expect([failedAt, n] == (afterEarlierCompaction ? [10, 16] : [5, 11]))
        #expect(reported.withLock { $0 } == [.failed(.injected(step.rawValue)), .recovered(afterFailures: 1)],
                "the failure, then the success after it; not the earlier compaction")
        #expect(files.text(files.path) == expected.listText)
        #expect(files.journalText == "")
        #expect(try await FileListStore(path: files.path).load() == expected.list)
        _ = try await addAndSettle(n + 1, store, files, &expected)
        #expect(files.journalText == Stored.added(n + 1, revision: n + 1))
    }

    @Test("a format 1 snapshot loads and is rewritten as format 3 at once, with a new identity, which the next compaction keeps")
    func format1Rewritten() async throws {
        let files = try StoreFiles()
        defer { files.remove() }
        let format1 = #"{"format":1,"items":[\#(Stored.item(1, "Book 1", revision: 1)),\#(Stored.item(2, "Book 2", revision: 2))],"revision":2}"#
        try files.write(format1, to: files.path)
        let store = FileListStore(path: files.path, compactionMinimumBytes: 1024)

        let loaded = try await store.loadStored()

        #expect(loaded.snapshot == (try twoItems()))
        let rewritten = Stored.snapshot3(
            revision: 2, (1...2).map { Stored.item($0, "Book \($0)", revision: $0) }, identity: loaded.identity)
        #expect(files.text(files.path) == rewritten)
        #expect(files.journalText == "")
        var expected = Expected(minimum: 1024, list: loaded.snapshot, snapshot: rewritten, identity: loaded.identity)
        var n: UInt64 = 2
        repeat { n += 1 } while try await !addAndSettle(n, store, files, &expected)

        #expect(n == 7)
        #expect(files.text(files.path) == Stored.snapshot3(
            revision: 7, (1...7).map { Stored.item($0, "Book \($0)", revision: $0) }, identity: loaded.identity))
        #expect(files.journalText == "")
        #expect(try await FileListStore(path: files.path).load() == expected.list)
    }

    // MARK: - Failed appends

    @Test("a failed append answers the commit's failure, leaves the journal length unchanged, and the next commit works",
          arguments: [FileFaults.Step.write, .fsync])
    func failedAppend(step: FileFaults.Step) async throws {
        let files = try StoreFiles()
        defer { files.remove() }
        let faults = FileFaults()
        let store = FileListStore(path: files.path, faults: faults)
        _ = try await store.load()
        try await commit(store, addCommit(1, base: 0)).get()
        try await commit(store, addCommit(2, base: 1)).get()

        faults.arm(step)
        let failed = await commit(store, addCommit(3, base: 2))

        #expect(failed.error == .injected(step.rawValue))
        #expect(files.journalText == Self.twoRecords)
        #expect(files.length(files.journal) == Self.twoRecords.utf8.count + files.journalHeaderLength)
        // A commit built on the failed one is refused: the store is still at revision 2.
        #expect(await commit(store, addCommit(4, base: 3)).error == .baseMismatch(expected: 3, actual: 2))
        try await commit(store, addCommit(3, base: 2)).get()
        #expect(files.journalText == Self.twoRecords + Stored.added(3, revision: 3))
        #expect(try await FileListStore(path: files.path).load().revision == 3)
    }

    @Test("commits queued behind a failed append all fail, and none of them is stored")
    func queuedBehindFailedAppend() async throws {
        let files = try StoreFiles()
        defer { files.remove() }
        let faults = FileFaults()
        let store = FileListStore(path: files.path, faults: faults)
        _ = try await store.load()

        faults.arm(.write)
        let results = await commitAll(store, (1...5).map { addCommit($0, base: $0 - 1) })

        // Commits in the failed batch share its error; later batches are on a base the store never reached.
        #expect(results[0].error == .injected("write"))
        for (index, result) in results.enumerated().dropFirst() {
            let error = result.error
            #expect(error == .injected("write") || error == .baseMismatch(expected: Revision(index), actual: 0), "commit \(index + 1)")
        }
        #expect(files.journalText == "")
        try await commit(store, addCommit(1, base: 0)).get()
        #expect(files.journalText == Stored.added(1, revision: 1))
    }

    // MARK: - Space written ahead

    /// `text`'s bytes followed by zero bytes up to `length` in all.
    private static func padded(_ text: String, to length: Int) -> [UInt8] {
        Array(text.utf8) + [UInt8](repeating: 0, count: length - text.utf8.count)
    }

    @Test("after a commit, zero bytes are written ahead of the records; the next commit overwrites them; a reload reads the records alone and cuts the zeros")
    func spaceWrittenAhead() async throws {
        let files = try StoreFiles()
        defer { files.remove() }
        let store = FileListStore(path: files.path, preallocationBytes: 4096)
        _ = try await store.load()
        let one = Stored.added(1, revision: 1)

        try await commit(store, addCommit(1, base: 0)).get()
        _ = await settle(store)
        #expect(files.journalAfterHeader == Self.padded(one, to: one.utf8.count + 4096))

        try await commit(store, addCommit(2, base: 1)).get()
        _ = await settle(store)
        // Still more than a quarter of the space left: the file did not grow.
        #expect(files.journalAfterHeader == Self.padded(Self.twoRecords, to: one.utf8.count + 4096))

        let reloaded = try await FileListStore(path: files.path).load()
        #expect(reloaded == (try twoItems()))
        #expect(files.journalAfterHeader == Array(Self.twoRecords.utf8))
    }

    @Test("once less than a quarter of the space written ahead is left, the journal is extended to a full amount again")
    func spaceWrittenAheadIsExtended() async throws {
        let files = try StoreFiles()
        defer { files.remove() }
        // With records of ~194 bytes, 2,000 bytes ahead are extended at the 9th record with a quarter (500 bytes)
        // as the threshold; a third would extend at the 8th, a fifth at the 10th.
        let ahead = 2000
        let store = FileListStore(path: files.path, preallocationBytes: ahead)
        _ = try await store.load()
        var expected = ""
        var lengths: [Int] = []
        var extendedAt: [UInt64] = []
        var allocated = 0

        for n in UInt64(1)...12 {
            try await commit(store, addCommit(n, base: n - 1)).get()
            _ = await settle(store)
            expected += Stored.added(n, revision: n)
            let length = Expected.headerBytes + expected.utf8.count
            if allocated - length < ahead / 4 {
                allocated = length + ahead
                extendedAt.append(n)
            }
            lengths.append(try #require(files.length(files.journal)))
            #expect(files.journalText == expected)
            #expect(lengths.last == allocated, "after record \(n)")
        }

        #expect(extendedAt == [1, 9])
    }

    @Test("after a failed round the journal is cut to its records, and the next round that succeeds writes the zeros again")
    func spaceWrittenAheadAfterFailedRound() async throws {
        let files = try StoreFiles()
        defer { files.remove() }
        let faults = FileFaults()
        let store = FileListStore(path: files.path, faults: faults, preallocationBytes: 4096)
        _ = try await store.load()
        let one = Stored.added(1, revision: 1)
        try await commit(store, addCommit(1, base: 0)).get()
        _ = await settle(store)

        faults.arm(.fsync)
        #expect(await commit(store, addCommit(2, base: 1)).error == .injected("fsync"))
        #expect(files.journalAfterHeader == Array(one.utf8))

        try await commit(store, addCommit(2, base: 1)).get()
        _ = await settle(store)
        #expect(files.journalAfterHeader == Self.padded(Self.twoRecords, to: Self.twoRecords.utf8.count + 4096))
    }

    @Test("after a compaction empties the journal, the zeros are written again from its start")
    func spaceWrittenAheadAfterCompaction() async throws {
        let files = try StoreFiles()
        defer { files.remove() }
        let store = FileListStore(path: files.path, compactionMinimumBytes: 512, preallocationBytes: 4096)
        _ = try await store.load()

        var n: UInt64 = 0
        repeat {
            n += 1
            try await commit(store, addCommit(n, base: n - 1)).get()
            _ = await settle(store)
        } while files.journalText != "" && n < 20

        #expect(files.exists(files.path), "compacted after \(n) records")
        #expect(files.journalAfterHeader == [UInt8](repeating: 0, count: 4096))
        #expect(try await FileListStore(path: files.path).load().revision == n)
    }

    @Test("with preallocationBytes 0 the journal holds its records and nothing else")
    func noSpaceWrittenAhead() async throws {
        let files = try StoreFiles()
        defer { files.remove() }
        let store = FileListStore(path: files.path, preallocationBytes: 0)
        _ = try await store.load()

        try await commit(store, addCommit(1, base: 0)).get()
        try await commit(store, addCommit(2, base: 1)).get()
        _ = await settle(store)

        #expect(files.journalAfterHeader == Array(Self.twoRecords.utf8))
    }

    @Test("a failed preallocation fails no commit and is cut back; it is tried again once the records grew by a quarter of the amount")
    func failedPreallocation() async throws {
        let files = try StoreFiles()
        defer { files.remove() }
        let faults = FileFaults()
        // A quarter of 800 bytes is more than one ~176-byte record and less than two.
        let store = FileListStore(path: files.path, faults: faults, preallocationBytes: 800)
        _ = try await store.load()
        let three = Self.twoRecords + Stored.added(3, revision: 3)

        faults.arm(.preallocate)
        try await commit(store, addCommit(1, base: 0)).get()
        _ = await settle(store)
        #expect(files.journalAfterHeader == Array(Stored.added(1, revision: 1).utf8))

        try await commit(store, addCommit(2, base: 1)).get()
        _ = await settle(store)
        #expect(files.journalAfterHeader == Array(Self.twoRecords.utf8), "not tried again yet")

        try await commit(store, addCommit(3, base: 2)).get()
        _ = await settle(store)
        #expect(files.journalAfterHeader == Self.padded(three, to: three.utf8.count + 800))
        #expect(try await FileListStore(path: files.path).load().revision == 3)
    }

    @Test("a preallocation that failed just before a compaction is tried again after it, counted from the emptied journal")
    func failedPreallocationBeforeCompaction() async throws {
        let files = try StoreFiles()
        defer { files.remove() }
        let faults = FileFaults()
        // ~176-byte records: zeros at the 1st record (to 576 bytes), tried again at the 3rd (48 bytes left, fewer
        // than a quarter of 400), compaction at the 4th (over 700 bytes of records).
        let store = FileListStore(path: files.path, faults: faults, compactionMinimumBytes: 700, preallocationBytes: 400)
        _ = try await store.load()
        for n in UInt64(1)...2 { try await commit(store, addCommit(n, base: n - 1)).get() }

        faults.arm(.preallocate)
        try await commit(store, addCommit(3, base: 2)).get()
        _ = await settle(store)
        let three = Self.twoRecords + Stored.added(3, revision: 3)
        // The zeros written at the first record are still there; the failed try wrote none after them.
        #expect(files.journalAfterHeader == Self.padded(three, to: Stored.added(1, revision: 1).utf8.count + 400))

        try await commit(store, addCommit(4, base: 3)).get()
        _ = await settle(store)
        #expect(files.exists(files.path))
        #expect(files.journalAfterHeader == [UInt8](repeating: 0, count: 400))
    }

    // MARK: - Compaction beside appends

    /// The journal text of records `range`, each adding `Book n` at revision n.
    private static func records(_ range: ClosedRange<UInt64>) -> String {
        range.map { Stored.added($0, revision: $0) }.joined()
    }

    /// Loads the files afresh: they must hold exactly `Book 1` ... `Book count`, at revision `count`.
    private static func expectReloads(
        _ files: StoreFiles, books count: UInt64, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let reloaded = try await FileListStore(path: files.path).load()
        #expect(reloaded.revision == count, sourceLocation: sourceLocation)
        #expect(reloaded.items.items.map(\.title) == (1...count).map { "Book \($0)" }, sourceLocation: sourceLocation)
    }

    /// A loaded store whose compaction (due after record 4: four ~176-byte records outgrow 700 bytes, the two after
    /// it stay under 700, so no second one follows) is held while records 1...6 are committed; call `release`.
    private static func storeWithHeldCompaction(
        _ files: StoreFiles, faults: FileFaults? = nil
    ) async throws -> (store: FileListStore, release: @Sendable () -> Void) {
        let store = FileListStore(path: files.path, faults: faults, compactionMinimumBytes: 700, preallocationBytes: 0)
        _ = try await store.load()
        let release = store.holdCompactions()
        for n in UInt64(1)...6 { try await commit(store, addCommit(n, base: n - 1)).get() }
        return (store, release)
    }

    @Test("rounds appended while a compaction writes the snapshot are kept: the journal is replaced by the records after it, and the list reloads whole")
    func appendsDuringCompaction() async throws {
        let files = try StoreFiles()
        defer { files.remove() }
        let (store, release) = try await Self.storeWithHeldCompaction(files)
        #expect(!files.exists(files.path), "the held compaction has written nothing")
        #expect(files.journalText == Self.records(1...6))

        release()
        _ = await settle(store)

        let snapshot = try SnapshotCodec.decode(try #require(files.bytes(files.path)), path: files.path)
        #expect(snapshot.revision == 4)
        #expect(files.journalText == Self.records(5...6))
        #expect(!files.exists(files.journalTemp))
        try await Self.expectReloads(files, books: 6)
    }

    @Test("the list a compaction takes back includes the rounds appended meanwhile: the next compaction writes them too")
    func nextCompactionAfterAppendsDuringOne() async throws {
        let files = try StoreFiles()
        defer { files.remove() }
        let (store, release) = try await Self.storeWithHeldCompaction(files)
        release()
        _ = await settle(store)

        var n: UInt64 = 6
        repeat {
            n += 1
            try await commit(store, addCommit(n, base: n - 1)).get()
            _ = await settle(store)
        } while files.journalText != "" && n < 30

        let snapshot = try SnapshotCodec.decode(try #require(files.bytes(files.path)), path: files.path)
        #expect(snapshot.revision == n)
        #expect(snapshot.items.items.map(\.title) == (1...n).map { "Book \($0)" })
    }

    @Test("a journal replacement that fails leaves the whole journal beside the new snapshot; nothing is lost and the next commit works")
    func failedJournalReplacement() async throws {
        let files = try StoreFiles()
        defer { files.remove() }
        let faults = FileFaults()
        let (store, release) = try await Self.storeWithHeldCompaction(files, faults: faults)
        faults.arm(.rotate)
        release()
        _ = await settle(store)

        let snapshot = try SnapshotCodec.decode(try #require(files.bytes(files.path)), path: files.path)
        #expect(snapshot.revision == 4)
        #expect(files.journalText == Self.records(1...6))
        #expect(!files.exists(files.journalTemp))
        try await commit(store, addCommit(7, base: 6)).get()
        try await Self.expectReloads(files, books: 7)
    }

    @Test("a directory sync that fails after the journal's replacement is retried before the next append: while it fails nothing is written, once it works writes go on")
    func failedSyncAfterJournalReplacement() async throws {
        let files = try StoreFiles()
        defer { files.remove() }
        let faults = FileFaults()
        let (store, release) = try await Self.storeWithHeldCompaction(files, faults: faults)
        // The sync after the rename fails, and so does its first retry.
        faults.arm(.rotateSync, times: 2)
        release()
        _ = await settle(store)

        #expect(await commit(store, addCommit(7, base: 6)).error == .injected("rotateSync"))
        #expect(files.journalText == Self.records(5...6))
        try await commit(store, addCommit(7, base: 6)).get()
        #expect(files.journalText == Self.records(5...7))
        try await commit(store, addCommit(8, base: 7)).get()
        try await Self.expectReloads(files, books: 8)
    }

    @Test("a compaction finishes while commits keep coming: the store takes its outcome between two rounds")
    func compactionFinishesUnderSteadyLoad() async throws {
        let files = try StoreFiles()
        defer { files.remove() }
        let (store, release) = try await Self.storeWithHeldCompaction(files)
        let firstRecord = Array(Stored.added(1, revision: 1).utf8)

        // Each commit is enqueued from the previous one's completion, so the store's queue never runs dry; the
        // chain stops as soon as the journal no longer holds record 1 (the compaction has finished; the journal
        // starts with its header line).
        let finishedAt: UInt64? = await withCheckedContinuation { continuation in
            @Sendable func chain(_ n: UInt64) {
                store.enqueue(addCommit(n, base: n - 1)) { result in
                    let finished = files.journalBytes.map { $0.firstRange(of: firstRecord) == nil } ?? false
                    if finished || (try? result.get()) == nil || n == 5_000 {
                        continuation.resume(returning: finished ? n : nil)
                    } else {
                        if n == 7 { release() }
                        chain(n + 1)
                    }
                }
            }
            chain(7)
        }

        #expect(finishedAt != nil, "the compaction never finished while commits kept coming")
        _ = await settle(store)
        let reloaded = try await FileListStore(path: files.path).load()
        #expect(reloaded.revision == (finishedAt ?? 0))
    }

    @Test("a replacement journal left by a crash is removed at load; the journal in place is the one read")
    func leftoverJournalTemp() async throws {
        let files = try StoreFiles()
        defer { files.remove() }
        try files.write(Self.twoRecords, to: files.journal)
        try files.write("left over", to: files.journalTemp)

        let loaded = try await FileListStore(path: files.path).load()

        #expect(loaded == (try twoItems()))
        #expect(!files.exists(files.journalTemp))
    }

    // MARK: - Group commit

    @Test("many commits enqueued back to back are all stored, in order, one line each")
    func groupCommit() async throws {
        let files = try StoreFiles()
        defer { files.remove() }
        let store = FileListStore(path: files.path)
        _ = try await store.load()

        let results = await commitAll(store, (1...60).map { addCommit($0, base: $0 - 1) })

        #expect(results.allSatisfy { $0.error == nil })
        let text = try #require(files.journalText)
        #expect(text == (UInt64(1)...60).map { Stored.added($0, revision: $0) }.joined())
        let revisions = try text.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])["revision"] as? Int
        }
        #expect(revisions == Array(1...60))
        try await Self.expectReloads(files, books: 60)
    }

    @Test("a commit on the wrong base in the middle of a group is refused alone")
    func groupWithBadBase() async throws {
        let files = try StoreFiles()
        defer { files.remove() }
        let store = FileListStore(path: files.path)
        _ = try await store.load()

        let results = await commitAll(store, [addCommit(1, base: 0), addCommit(9, base: 7), addCommit(2, base: 1)])

        #expect(results.map(\.error) == [nil, .baseMismatch(expected: 7, actual: 1), nil])
        #expect(files.journalText == Self.twoRecords)
    }

    @Test("group commits and compactions interleaved keep every change, in order")
    func groupCommitWithCompaction() async throws {
        let files = try StoreFiles()
        defer { files.remove() }
        let store = FileListStore(path: files.path, compactionMinimumBytes: 1024)
        _ = try await store.load()
        var expected = ListSnapshot()
        var commits: [StoreCommit] = []
        for n in UInt64(1)...300 {
            let change: StoreCommit
            if n % 3 == 0 {
                let target = SequentialIDs.id(n - 1)
                change = StoreCommit(generation: 0, base: expected.revision, changes: [
                    RevisionedChange(revision: expected.revision + 1, change: .removed(target)),
                ])
            } else {
                change = addCommit(n, base: expected.revision)
            }
            try expected.apply(change, path: "expected")
            commits.append(change)
        }

        let results = await commitAll(store, commits)

        #expect(results.allSatisfy { $0.error == nil })
        #expect(await settle(store) == .baseMismatch(expected: .max, actual: 300))
        #expect(expected.items.count == 100)
        #expect(files.exists(files.path))
        #expect(try await FileListStore(path: files.path).load() == expected)
    }

    // MARK: - ListSnapshot.apply

    static let unfitting: [(String, [RevisionedChange], StorageError)] = [
        ("an update of a missing item", [
            RevisionedChange(revision: 3, change: .added(item(3, "C", revision: 3))),
            RevisionedChange(revision: 4, change: .updated(item(9, "Z", revision: 4))),
        ], .corrupt(path: "memory", reason: "change at revision 4 does not apply")),
        ("a removal of a missing item", [
            RevisionedChange(revision: 3, change: .added(item(3, "C", revision: 3))),
            RevisionedChange(revision: 4, change: .removed(SequentialIDs.id(9))),
        ], .corrupt(path: "memory", reason: "change at revision 4 does not apply")),
        ("the same item added twice in one commit", [
            RevisionedChange(revision: 3, change: .added(item(3, "C", revision: 3))),
            RevisionedChange(revision: 4, change: .added(item(3, "C again", revision: 4))),
        ], .corrupt(path: "memory", reason: "change at revision 4 does not apply")),
        ("an update of an item the commit removed", [
            RevisionedChange(revision: 3, change: .removed(SequentialIDs.id(1))),
            RevisionedChange(revision: 4, change: .updated(item(1, "A", isRead: true, revision: 4))),
        ], .corrupt(path: "memory", reason: "change at revision 4 does not apply")),
        ("a revision that skips one", [
            RevisionedChange(revision: 3, change: .added(item(3, "C", revision: 3))),
            RevisionedChange(revision: 5, change: .added(item(4, "D", revision: 5))),
        ], .corrupt(path: "memory", reason: "change at revision 5 does not apply")),
    ]

    @Test("a commit whose second change does not fit leaves the snapshot and the memory store unchanged",
          arguments: unfitting)
    func applyRefusesWhole(what: String, changes: [RevisionedChange], error: StorageError) async throws {
        let before = try twoItems()
        var target = before
        let change = StoreCommit(generation: 0, base: 2, changes: changes)

        #expect(throws: error, "\(what)") { try target.apply(change, path: "memory") }
        #expect(target == before)

        let store = MemoryListStore(initial: before)
        #expect(await commit(store, change).error == error)
        #expect(store.stored == before)
        try await commit(store, addCommit(3, base: 2)).get()
        #expect(store.stored.revision == 3)
    }

    @Test("apply checks the base, and applies a fitting commit in order, in place")
    func applyInPlace() throws {
        var target = try twoItems()
        let copy = target

        #expect(throws: StorageError.baseMismatch(expected: 1, actual: 2)) {
            try target.apply(addCommit(3, base: 1), path: "memory")
        }
        #expect(target == copy)

        let back = item(1, "A back", revision: 4)
        try target.apply(StoreCommit(generation: 0, base: 2, changes: [
            RevisionedChange(revision: 3, change: .removed(SequentialIDs.id(1))),
            RevisionedChange(revision: 4, change: .added(back)),
            RevisionedChange(revision: 5, change: .updated(item(2, "Book 2", isRead: true, revision: 5))),
        ]), path: "memory")

        #expect(target == (try snapshot(revision: 5, [item(2, "Book 2", isRead: true, revision: 5), back])))
        #expect(copy == (try twoItems()))
    }

    // MARK: - Journal records are checked like snapshot items

    @Test("a journal record whose item breaks a snapshot rule is refused on load, naming the journal",
          arguments: [
              ("an untrimmed title", Stored.record(1, "added", Stored.item(1, " padded ", revision: 1))),
              ("a blank title", Stored.record(1, "added", Stored.item(1, "", revision: 1))),
              ("a control character", Stored.record(1, "added", Stored.item(1, #"A\u0007B"#, revision: 1))),
              ("an item revision above the record's", Stored.record(1, "added", Stored.item(1, "A", revision: 7))),
          ])
    func journalItemRules(what: String, journal: String) async throws {
        let files = try StoreFiles()
        defer { files.remove() }
        try files.write(journal, to: files.journal)

        let error = await loadResult(FileListStore(path: files.path)).error

        guard case .corruptJournal(let path, _)? = error else {
            Issue.record("\(what): expected the journal to be refused as corrupt, got \(String(describing: error))")
            return
        }
        #expect(path == files.journal)
        #expect(files.text(files.journal) == journal)
    }

    @Test("a record whose revision goes back is refused, not skipped")
    func revisionGoingBack() async throws {
        let files = try StoreFiles()
        defer { files.remove() }
        let journal = Self.twoRecords + Stored.added(1, revision: 1)
        try files.write(journal, to: files.journal)

        let error = await loadResult(FileListStore(path: files.path)).error

        #expect(error == .corruptJournal(path: files.journal, reason: "the record for revision 1 does not follow revision 2"))
        #expect(files.text(files.journal) == journal)
    }

    // MARK: - Over a reading list

    @Test("a reading list over the file store, with and without compaction, reloads to the identical snapshot",
          arguments: [1024, 1 << 20])
    func readingListScenario(compactionMinimumBytes: Int) async throws {
        let files = try StoreFiles()
        defer { files.remove() }
        let clock = FixedClock()
        let store = FileListStore(path: files.path, compactionMinimumBytes: compactionMinimumBytes)
        let list = try await makeList(store: store, clock: clock)
        var ids: [UUID] = []
        for n in 0..<20 {
            ids.append(try await list.apply(.add(title: n % 4 == 0 ? "Quote \" \\ / ✓ \(n)" : "Book \(n)")).id)
            clock.advance(by: 86_400.000_7)
        }
        _ = try await list.apply(.toggle(id: ids[1]))
        _ = try await list.apply(.toggle(id: ids[1]))
        _ = try await list.apply(.toggle(id: ids[2]))
        _ = try await list.apply(.setRead(id: ids[3], isRead: true))
        _ = try await list.apply(.rename(id: ids[5], title: "  Renamed / inside  "))
        _ = try await list.apply(.remove(id: ids[0]))
        _ = try await list.apply(.remove(id: ids[19]))
        _ = try await list.apply(.add(title: "Last"))
        let final = await list.snapshot()
        #expect(final.revision == 28)
        #expect(final.items.count == 19)
        #expect(final.items[ids[5]]?.title == "Renamed / inside")
        #expect(await settle(store) == .baseMismatch(expected: .max, actual: 28))
        #expect(files.exists(files.path) == (compactionMinimumBytes == 1024))

        let reopened = try await makeList(store: FileListStore(path: files.path))

        let reloaded = await reopened.snapshot()
        #expect(reloaded == final)
        #expect(reloaded.items.items.map { Timestamp.format($0.addedAt) }
            == final.items.items.map { Timestamp.format($0.addedAt) })
        #expect(await reopened.revision == 28)
    }
}
