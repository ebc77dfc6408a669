import Dispatch
import Foundation

/// Compaction (protocol/STORAGE.md, "Compaction"): the new snapshot is written on the compaction queue while the
/// store's queue goes on appending; the store's queue then drops the journal records it holds.
extension FileListStore {
    /// Starts a compaction once the journal is larger than `compactAt` and none is running. On the compaction queue,
    /// while this queue keeps appending rounds to the journal, the list the files hold is taken (the in-memory copy,
    /// or read back from the snapshot and the journal's first bytes, which appends never touch), encoded, written
    /// aside, synced and renamed over the snapshot; `finishCompactionIfDone` then drops the records the new snapshot
    /// holds. A failure leaves a consistent pair of files and is retried after the journal has grown by as much again.
    func compactIfDue(_ disk: Disk) {
        guard disk.broken == nil, disk.compaction == nil, let journal = disk.journal, let revision = disk.revision,
              let identity = disk.identity, journal.length > disk.compactAt else { return }
        // Handed over, not shared: the appends meanwhile go to `Compaction.appended` instead of a copy of the list.
        let written = disk.written
        disk.written = nil
        let journalLength = journal.length
        disk.compaction = Compaction(journalLength: journalLength)
        compactionQueue.async { @Sendable [self] in
            let result = Result { () throws(StorageError) -> (list: ListSnapshot, bytes: Int) in
                let list: ListSnapshot
                if let written { list = written } else { list = try readBack(journalPrefix: journalLength) }
                guard list.revision == revision else {
                    throw .corruptJournal(path: journalPath, reason: "compaction read revision \(list.revision), not \(revision)")
                }
                return (list, try file.replace(with: list, identity: identity))
            }
            compacted.withLock { $0 = result }
            // For an idle store; a draining one takes the outcome between two rounds.
            queue.async { @Sendable [self] in finishCompactionIfDone(onQueue()) }
        }
    }

    /// Store queue, once the compaction queue wrote (or failed to write) the new snapshot: takes the compacted list
    /// back with the commits appended since, and drops the journal's records the snapshot now holds.
    func finishCompactionIfDone(_ disk: Disk) {
        guard let result = compacted.withLock({ slot in defer { slot = nil }; return slot }),
              let compaction = disk.compaction, let journal = disk.journal else { return }
        disk.compaction = nil
        let done: (list: ListSnapshot, bytes: Int)
        switch consume result {
        case .success(let value) where disk.broken == nil: done = value
        case .success:
            // Read back from the files by the next compaction.
            disk.compactAt = journal.length * 2
            return
        case .failure(let error):
            disk.compactAt = journal.length * 2
            disk.failedCompactions += 1
            compactionEvents?(.failed(error))
            return
        }
        let snapshotBytes = done.bytes
        // Moved, not copied: with a second reference left, applying the appended commits would copy the whole list.
        disk.written = (consume done).list
        Self.record(compaction.appended, in: disk)
        do throws(StorageError) {
            // The new snapshot is durable: the journal's first `journalLength` bytes are at or below its revision.
            try journal.dropFirst(compaction.journalLength, syncDirectory: file.syncDirectory)
            disk.compactAt = max(snapshotBytes, compactionMinimumBytes)
            // The cut journal has no space written ahead any more.
            journal.preallocate(preallocationBytes)
            if disk.failedCompactions > 0 {
                compactionEvents?(.recovered(afterFailures: disk.failedCompactions))
                disk.failedCompactions = 0
            }
        } catch {
            // A journal whose cut or replacement failed halfway has an unknown state: appending could lose records.
            if journal.damaged { disk.broken = error }
            disk.compactAt = journal.length * 2
            disk.failedCompactions += 1
            compactionEvents?(journal.damaged ? .stoppedWrites(error) : .failed(error))
        }
    }

    /// Holds the compaction queue until the returned closure is called: a compaction that starts meanwhile waits
    /// before it writes anything. For tests of what happens while one runs.
    func holdCompactions() -> @Sendable () -> Void {
        let gate = DispatchSemaphore(value: 0)
        compactionQueue.async { @Sendable in gate.wait() }
        return { gate.signal() }
    }

    /// Suspends until no compaction is running or about to finish, and everything queued before has been stored
    /// (commits still waiting in `thisRound` for their round's end are not queued yet). For tests, which look at
    /// the files after a compaction.
    func waitUntilCompacted() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async { @Sendable [self] in
                compactionQueue.async { @Sendable [self] in
                    queue.async { @Sendable in continuation.resume() }
                }
            }
        }
    }

    /// The list the files hold, read back from them: the snapshot with the journal replayed on top, both streamed as
    /// at start-up, every checksum checked. Only a compaction writes the snapshot, one at a time: reading it here is
    /// safe.
    private func readBack(journalPrefix: Int) throws(StorageError) -> ListSnapshot {
        var snapshot = try file.readStored(blockBytes: readBlockBytes)?.stored.snapshot ?? ListSnapshot()
        var replay = JournalReplay(base: snapshot.revision, path: journalPath)
        _ = try JournalFile.read(path: journalPath, prefix: journalPrefix, blockBytes: readBlockBytes) { record throws(StorageError) in
            try replay.apply(record, to: &snapshot)
        }
        return snapshot
    }

    /// Compacts during `load()`, from the list it just built, before anything is served (protocol/STORAGE.md,
    /// "Loading", step 8): when the journal has outgrown the snapshot — so a store restarted over and over, each run
    /// killed before its first compaction finished, no longer lets the journal grow without bound nor replays it twice
    /// — and when the store was written before identities, to give it one that outlives restarts. A failure is a
    /// failed compaction like any other (logged; everything is still in the files), and the store serves anyway.
    func compactAtStart(_ list: ListSnapshot, identity: UUID, _ disk: Disk) {
        guard let journal = disk.journal else { return }
        let journalBytes = journal.length
        do throws(StorageError) {
            let snapshotBytes = try file.replace(with: list, identity: identity)
            try journal.dropFirst(journal.length, syncDirectory: file.syncDirectory)
            disk.compactAt = max(snapshotBytes, compactionMinimumBytes)
            loadEvents?(.compactedAtStart(journalBytes: journalBytes, snapshotBytes: snapshotBytes))
        } catch {
            if journal.damaged { disk.broken = error }
            disk.compactAt = journal.length * 2
            disk.failedCompactions += 1
            compactionEvents?(journal.damaged ? .stoppedWrites(error) : .failed(error))
        }
    }
}
