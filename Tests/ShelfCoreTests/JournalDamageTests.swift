import Foundation
@testable import ShelfCore
import Synchronization
import Testing

/// A journal whose length is unknown (a truncation failed) must take no more appends: a record written after a
/// hole could be lost or refused at the next start.
@Suite struct JournalDamageTests {
    @Test("a failed journal cut after a failed append stops all writes until the store is opened again")
    // The only way a failed save can outlive a restart: the append failed and the cut that undoes it failed too.
    func failedCutAfterFailedAppend() async throws {
        let files = try StoreFiles()
        defer { files.remove() }
        let faults = FileFaults()
        let store = FileListStore(path: files.path, faults: faults)
        _ = try await store.load()
        #expect(await commit(store, addCommit(1, base: 0)).error == nil)
        faults.arm(.fsync)
        faults.arm(.truncate)
        #expect(await commit(store, addCommit(2, base: 1)).error == .injected("fsync"))
        // Damaged: even a commit on the right base is refused now.
        #expect(await commit(store, addCommit(2, base: 1)).error == .injected("fsync"))

        // A double fault: the failed change may or may not be in the file (here it is, whole); either way the store
        // opens consistent and takes the next change.
        let reopened = FileListStore(path: files.path)
        let list = try await reopened.load()
        #expect(list.revision == 2)
        #expect(await commit(reopened, addCommit(3, base: 2)).error == nil)
    }

    @Test("a journal cut after a compaction that fails with the file unchanged stops nothing: the next compaction drops the records, and every acknowledged change loads")
    // Found by a storage attack run: one failed cut after a compaction stopped all writes until a restart, though
    // the journal it left (records the new snapshot already holds) was still right.
    func failedCutAfterCompaction() async throws {
        let files = try StoreFiles()
        defer { files.remove() }
        let (_, acknowledged, reported) = try await Self.commitUntilCompactionEvents(2, faulting: .truncate, at: files, limit: 60)
        #expect(reported == [.failed(.injected("truncate")), .recovered(afterFailures: 1)])
        let records = try JournalFile.records(at: files.path + ".journal").count
        #expect(records == 0, "the compaction after the failed cut dropped every record")
        let reopened = FileListStore(path: files.path)
        #expect(try await reopened.load().revision == acknowledged)
    }

    @Test("after a failed cut that left the journal's old records, a restart skips them and loads every change")
    func restartAfterFailedCutAfterCompaction() async throws {
        let files = try StoreFiles()
        defer { files.remove() }
        let (store, counted, reported) = try await Self.commitUntilCompactionEvents(1, faulting: .truncate, at: files, limit: 30)
        var acknowledged = counted
        #expect(reported == [.failed(.injected("truncate"))])
        // Two more, appended after the records the new snapshot holds.
        for _ in 0..<2 {
            #expect(await commit(store, addCommit(acknowledged + 1, base: acknowledged)).error == nil)
            acknowledged += 1
        }
        let snapshotRevision = try SnapshotCodec.decode(try #require(files.bytes(files.path)), path: files.path).revision
        let records = try JournalFile.records(at: files.path + ".journal").map(\.revision)
        #expect(records.first.map { $0 <= snapshotRevision } == true, "the journal still starts with records the snapshot holds")
        #expect(records.last == acknowledged)
        let reopened = FileListStore(path: files.path)
        let list = try await reopened.load()
        #expect(list.revision == acknowledged)
        #expect(list.items.count == Int(acknowledged))
    }

    @Test("a journal cut after a compaction that fails after changing the file stops all writes; the files still load with every acknowledged change")
    // The cut's outcome is unknown then (the file may end anywhere): appending could leave a hole or a torn record
    // in the middle.
    func failedCutThatChangedTheFile() async throws {
        let files = try StoreFiles()
        defer { files.remove() }
        let (store, acknowledged, reported) = try await Self.commitUntilCompactionEvents(1, faulting: .truncateLate, at: files, limit: 30)
        #expect(reported == [.stoppedWrites(.injected("truncateLate"))], "reported as stopping writes, not as a retry")
        #expect(await commit(store, addCommit(acknowledged + 1, base: acknowledged)).error != nil, "a later commit is refused")
        let reopened = FileListStore(path: files.path)
        #expect(try await reopened.load().revision == acknowledged)
    }

    /// A file store at `files` that compacts past 256 bytes, with `step` armed: commits one at a time, each followed by
    /// any compaction it made due, until `count` compaction events were reported (or `limit` commits). One at a
    /// time, because a commit appended while a compaction runs sends its cut down the other path (the journal's
    /// replacement), which a `truncate` fault does not reach.
    /// - Returns: the store, how many commits were acknowledged, and the events.
    private static func commitUntilCompactionEvents(
        _ count: Int, faulting step: FileFaults.Step, at files: StoreFiles, limit: Revision
    ) async throws -> (store: FileListStore, acknowledged: Revision, reported: [CompactionEvent]) {
        let faults = FileFaults()
        let reported = Mutex<[CompactionEvent]>([])
        let store = FileListStore(
            path: files.path, faults: faults, compactionMinimumBytes: 300,
            compactionEvents: { event in reported.withLock { $0.append(event) } })
        _ = try await store.load()
        faults.arm(step)
        var acknowledged: Revision = 0
        while reported.withLock({ $0.count }) < count, acknowledged < limit {
            #expect(await commit(store, addCommit(acknowledged + 1, base: acknowledged)).error == nil)
            acknowledged += 1
            await store.waitUntilCompacted()
        }
        return (store, acknowledged, reported.withLock { $0 })
    }
}

@Suite struct RevisionLimitTests {
    @Test("a list at revision 2^64-2 refuses the next change without writing it, tells the storage-failure handler, and the store still loads")
    func lastRevisionIsNeverWritten() async throws {
        let files = try StoreFiles()
        defer { files.remove() }
        try files.write(#"{"format":2,"revision":18446744073709551613,"items":0}"# + "\n", to: files.path)
        let list = try await makeList(store: FileListStore(path: files.path))
        let failures = Recorder<String>()
        await list.onStorageFailure { failures.append("\($0.error) at \($0.revision)") }

        let last = try await list.apply(.add(title: "Last"))
        let refused = await outcome(list, .add(title: "One too many"))

        #expect(last.revision == UInt64.max - 1)
        #expect(refused.error == .storageFailed(.revisionsExhausted))
        // Found by a hostile-input run: the refusal was never logged.
        #expect(failures.all == ["\(StorageError.revisionsExhausted) at \(UInt64.max - 1)"])
        #expect(await list.revision == UInt64.max - 1)
        let reloaded = try await FileListStore(path: files.path).load()
        #expect(reloaded.revision == UInt64.max - 1)
        #expect(reloaded.items.items.map(\.title) == ["Last"])
    }

    /// Found by a storage attack run: it was refused as if the field were missing ("needs a numeric revision").
    @Test("a snapshot at revision 2^64-1 is refused, saying so: the next change would have no revision", arguments: [
        #"{"format":2,"revision":18446744073709551615,"items":0}"# + "\n",
        #"{"format":1,"revision":18446744073709551615,"items":[]}"#,
    ])
    func exhaustedRevision(text: String) throws {
        #expect(throws: StorageError.corrupt(path: "/x", reason:
            "the list revision is 18446744073709551615 (2^64 − 1), past the last one a change can produce (2^64 − 2)")) {
            try SnapshotCodec.decode(Array(text.utf8), path: "/x")
        }
    }
}
