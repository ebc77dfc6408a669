import Dispatch
import Foundation
import Glibc
import Synchronization

/// A durable, log-structured store (protocol/STORAGE.md): a snapshot file plus an append-only journal of the
/// changes since. A commit appends its records to the journal and completes only after fdatasync; when the journal
/// outgrows the snapshot, the two are compacted into a new snapshot (written aside, fsynced, renamed over the old)
/// and the records it holds are dropped from the journal. So a change costs O(1), whatever the size of the list.
///
/// Appends run on one serial dispatch queue, never on the cooperative pool; commits that queue up while a write is
/// in progress are appended together with one write and one fdatasync (group commit). A compaction writes the new
/// snapshot on a second queue, so appends go on meanwhile.
public final class FileListStore: ListStore {
    private struct Queued {
        let commit: StoreCommit
        let completion: @Sendable (Result<Void, StorageError>) -> Void
    }

    private struct State {
        var queued: [Queued] = []
        var draining = false
    }

    /// What only the store's queue touches — hence `@unchecked Sendable`: it is confined to that one serial queue,
    /// which every access asserts.
    final class Disk: @unchecked Sendable {
        /// The stored revision; `nil` until `load()` succeeded.
        var revision: Revision?
        /// The list's identity, written with every snapshot and journal header; `nil` until `load()` succeeded.
        var identity: UUID?
        /// The list the two files hold together (snapshot plus journal), kept by the first compaction and then
        /// updated as records are appended, so later compactions only encode it. `nil` until then — not taken from
        /// `load()`, whose list the server mutates: sharing it would copy the whole list at the first change —,
        /// while a compaction has it (the records appended meanwhile wait in `compaction`), and again if a record
        /// ever failed to apply or a compaction failed (the next one then reads the files back).
        var written: ListSnapshot?
        var journal: JournalFile?
        /// The journal length at which to compact next.
        var compactAt = 0
        var lock: StoreLock?
        /// Set when the journal's state is unknown — it could not be cut back after a failed write or after a
        /// compaction: every later commit fails.
        var broken: StorageError?
        /// The compaction running on the compaction queue, if one is.
        var compaction: Compaction?
        /// Compactions failed since the last one that succeeded.
        var failedCompactions = 0
    }

    /// A compaction under way: how many bytes of the journal its snapshot holds, and the commits appended since,
    /// which go onto its list when it comes back (`finishCompactionIfDone`).
    struct Compaction {
        let journalLength: Int
        var appended: [StoreCommit] = []
    }

    let file: SnapshotFile
    private let faults: FileFaults?
    let compactionMinimumBytes: Int
    let preallocationBytes: Int
    /// How many bytes of the snapshot and the journal are read at a time (`load()`, a compaction's read-back, the
    /// journal's copy after a compaction).
    let readBlockBytes: Int
    private let roundEnd: (@Sendable (@escaping @Sendable () -> Void) -> Bool)?
    let compactionEvents: (@Sendable (CompactionEvent) -> Void)?
    let loadEvents: (@Sendable (LoadEvent) -> Void)?
    /// Commits made in the current round of the caller's event loop, handed to the queue together at its end
    /// (`roundEnd`).
    private let thisRound = Mutex<[Queued]>([])
    let queue = DispatchQueue(label: "shelf.file-store")
    /// Where a compaction encodes, writes and syncs the new snapshot, while the store's queue keeps appending.
    let compactionQueue = DispatchQueue(label: "shelf.file-store.compaction")
    private let state = Mutex(State())
    /// A compaction's outcome, set on the compaction queue and taken on the store's queue between two rounds
    /// (`finishCompactionIfDone`): a block queued behind a busy `drain` would wait until no commit is queued.
    let compacted = Mutex<Result<(list: ListSnapshot, bytes: Int), StorageError>?>(nil)
    private let confined = Disk()

    /// The snapshot's path.
    public var path: String { file.path }
    /// The journal's path: the snapshot's path + `.journal`, a symbolic link there followed (so a compaction's
    /// rename replaces the file it points to, not the link).
    public let journalPath: String

    /// A store for the snapshot at `path` and its journal beside it. Nothing is touched until `load()`.
    /// - Parameters:
    ///   - faults: test-only fault injection (`FileFaults.Step`: appends, snapshot replacement, truncation,
    ///     preallocation and the journal's replacement after a compaction).
    ///   - compactionMinimumBytes: the journal is compacted once it is larger than both the snapshot and this.
    ///   - preallocationBytes: how far ahead of its records the journal is filled with zero bytes, so that appends
    ///     do not grow the file (`JournalFile.preallocate`); 0 turns that off. Default 256 KiB.
    ///   - readBlockBytes: how many bytes of the snapshot or the journal are read (or, after a compaction, copied) at
    ///     a time; memory for reading is this plus the longest line, whatever the files' sizes. Default 8 MiB
    ///     (`defaultReadBlockBytes`); at least 1.
    ///   - roundEnd: where the commits of one round of the caller's event loop are handed to the store's queue
    ///     together: given the hand-over with the round's first commit, it runs it at the round's end and returns
    ///     true, or returns false to have it run at once. `shelfd` passes its event loop's `afterRound`, so the
    ///     commits its sessions make in one round go into one write and one fdatasync, never split between two
    ///     (protocol/STORAGE.md, "Group commit"). `nil`: each commit is handed over as it comes.
    ///   - compactionEvents: called on the store's queue when a compaction fails (a full disk, say), and when one
    ///     succeeds after failures. No commit fails with a compaction — the journal still holds every change and
    ///     keeps growing — so without this hook nobody would hear of it. The next try comes once the journal has
    ///     doubled, so calls are rare.
    ///   - loadEvents: called on the store's queue during `load()` when it cuts a torn tail off the journal (with
    ///     what was cut) and when it compacts at start: a cut that was not a crash's is damage an operator must hear of.
    public init(
        path: String, faults: FileFaults? = nil, compactionMinimumBytes: Int = 1 << 20,
        preallocationBytes: Int = FileListStore.defaultPreallocationBytes,
        readBlockBytes: Int = FileListStore.defaultReadBlockBytes,
        roundEnd: (@Sendable (@escaping @Sendable () -> Void) -> Bool)? = nil,
        compactionEvents: (@Sendable (CompactionEvent) -> Void)? = nil,
        loadEvents: (@Sendable (LoadEvent) -> Void)? = nil
    ) {
        file = SnapshotFile(path: path, faults: faults)
        journalPath = StorePath.resolved(file.path + ".journal")
        self.loadEvents = loadEvents
        self.faults = faults
        self.compactionMinimumBytes = compactionMinimumBytes
        self.preallocationBytes = preallocationBytes
        self.readBlockBytes = max(1, readBlockBytes)
        self.roundEnd = roundEnd
        self.compactionEvents = compactionEvents
    }

    /// 256 KiB (262,144 bytes). The zeros are written again once fewer than 64 KiB are left: about 1,000 `add`
    /// records of ~190 bytes between two preallocations.
    public static let defaultPreallocationBytes = 256 * 1024

    /// 8 MiB (8,388,608 bytes): large enough that each block's lines keep every core busy (`LineChunks`), small
    /// beside a list of any size worth streaming.
    public static let defaultReadBlockBytes = 8 << 20

    /// Room reserved per commit for a round's journal bytes (an `add` record is ~190 bytes), so a round's buffer is
    /// allocated once rather than regrown.
    static let typicalRecordBytes = 192

    /// Creates missing parent directories, takes the store's lock (`.NAME.lock` beside the file, held while this
    /// store lives), reads the snapshot and replays the journal, drops a torn last record (reported to
    /// `loadEvents`), removes a temp file left by a crash, and compacts at once when the journal has outgrown the
    /// snapshot or the store has no identity yet (protocol/STORAGE.md, "Loading"). A missing snapshot is an empty
    /// list at revision 0.
    /// - Throws: `StorageError` naming the file when it cannot be read or is refused (corrupt, duplicate ids,
    ///   unknown format, a bad checksum or a bad record in the middle of the journal, a gap in revisions, a snapshot
    ///   link whose target's directory is missing), or `.locked` when another process holds the lock; nothing is
    ///   modified then.
    public func load() async throws(StorageError) -> ListSnapshot {
        try await loadStored().snapshot
    }

    /// `load()`, with the list's identity: the one the snapshot or the journal's header names, or a new one for a
    /// new store (written with it at once) or a store written before identities (written by the compaction at start).
    public func loadStored() async throws(StorageError) -> StoredList {
        let result: Result<StoredList, StorageError> = await withCheckedContinuation { continuation in
            queue.async { @Sendable in
                continuation.resume(returning: Result { () throws(StorageError) in try self.loadOnQueue() })
            }
        }
        return try result.get()
    }

    private func loadOnQueue() throws(StorageError) -> StoredList {
        try file.checkLinkTarget()
        try file.createDirectory()
        let lock = try StoreLock(path: file.lockPath, guarding: file.path)
        do throws(StorageError) {
            // Both files streamed: each block's lines are applied as they are read, so memory follows the list, not
            // the files.
            let stored = try file.readStored(blockBytes: readBlockBytes)
            let decoded = stored?.stored
            var snapshot = decoded?.snapshot ?? ListSnapshot()
            var replay = JournalReplay(base: snapshot.revision, path: journalPath)
            let contents = try JournalFile.read(path: journalPath, blockBytes: readBlockBytes) { record throws(StorageError) in
                try replay.apply(record, to: &snapshot)
            }
            if let listed = decoded?.identity, let headed = contents.identity, listed != headed {
                throw .corruptJournal(
                    path: journalPath,
                    reason: "its header names list \(headed.wireString), but the snapshot \(file.path) is list \(listed.wireString)")
            }
            let identity = decoded?.identity ?? contents.identity ?? UUID.random()
            let journal = JournalFile(path: journalPath, identity: identity, faults: faults, blockBytes: readBlockBytes)
            // Before anything is written, so a refused start leaves the store as it was.
            try FileBytes.checkLeftoverRemovable(file.tempPath)
            try FileBytes.checkLeftoverRemovable(journal.tempPath)
            try journal.open(keeping: contents.validLength, headerLength: contents.headerLength)
            // The journal may have just been created: make its directory entry durable.
            try file.syncDirectory()
            file.removeLeftoverTemp()
            journal.removeLeftoverTemp()
            if let tail = contents.tail {
                loadEvents?(.cutTornTail(TornTailCut(
                    path: journalPath, keptRevision: snapshot.revision, keptRecords: contents.records,
                    keptBytes: contents.validLength, droppedBytes: tail.bytes, droppedLines: tail.lines,
                    firstDroppedLine: tail.line, reason: tail.reason, droppedRevision: tail.revision)))
            }
            let snapshotBytes = stored?.bytes ?? 0
            let disk = onQueue()
            disk.revision = snapshot.revision
            disk.identity = identity
            disk.journal = journal
            disk.compactAt = max(snapshotBytes, compactionMinimumBytes)
            disk.lock = lock
            let unidentified = stored != nil && decoded?.identity == nil && contents.identity == nil
            let oldJournal = contents.headerLength == 0 && contents.validLength > 0
            if unidentified || oldJournal || journal.length > disk.compactAt {
                compactAtStart(snapshot, identity: identity, disk)
            }
            Self.returnFreedMemory()
            return StoredList(snapshot: snapshot, identity: identity)
        } catch {
            lock.abandon()
            throw error
        }
    }

    /// Gives memory freed by the load back to the system (glibc's `malloc_trim(0)`, found with `dlsym`: Glibc's
    /// Swift module does not declare it): without it, the pages a large load freed stayed in the process
    /// (protocol/STORAGE.md, "Loading", step 9). Does nothing where there is no `malloc_trim`.
    static func returnFreedMemory() {
        typealias Trim = @convention(c) (Int) -> Int32
        guard let symbol = dlsym(nil, "malloc_trim") else { return }
        _ = unsafeBitCast(symbol, to: Trim.self)(0)
    }

    /// Applies journal records on top of a snapshot (protocol/STORAGE.md, "Loading", step 5): records at or below
    /// the snapshot's revision may only come first (left from before the last compaction) and are skipped; the rest
    /// must follow one another exactly and fit the list.
    struct JournalReplay {
        let base: Revision
        let path: String
        private var replaying = false

        init(base: Revision, path: String) {
            self.base = base
            self.path = path
        }

        mutating func apply(_ record: RevisionedChange, to snapshot: inout ListSnapshot) throws(StorageError) {
            if !replaying, record.revision <= base { return }
            replaying = true
            guard record.revision < .max, record.revision == snapshot.revision + 1 else {
                throw .corruptJournal(
                    path: path, reason: "the record for revision \(record.revision) does not follow revision \(snapshot.revision)")
            }
            // No change of shelfd's moves an item's addedAt: a record that does is not one it wrote.
            if case .updated(let item) = record.change, let stored = snapshot.items[item.id], stored.addedAt != item.addedAt {
                throw .corruptJournal(
                    path: path, reason: "the record for revision \(record.revision) changes the addedAt of item \(item.id.wireString)")
            }
            guard snapshot.items.apply(record.change) else {
                throw .corruptJournal(
                    path: path, reason: "the record for revision \(record.revision) does not fit the list at revision \(snapshot.revision)")
            }
            snapshot.revision = record.revision
        }
    }

    /// Queues `commit` for the store's queue, which appends it with every other queued commit in one write and one
    /// fdatasync, then completes them there, in order (`ListStore.enqueue`). With `roundEnd`, the commit waits in
    /// `thisRound` until the caller's round of the event loop ends.
    public func enqueue(_ commit: StoreCommit, completion: @escaping @Sendable (Result<Void, StorageError>) -> Void) {
        let queued = Queued(commit: commit, completion: completion)
        guard let roundEnd else { return handOff(CollectionOfOne(queued)) }
        let first = thisRound.withLock { round in
            round.append(queued)
            return round.count == 1
        }
        // A later commit of the round rides on the first one's hand-over.
        guard first else { return }
        if !roundEnd({ [self] in handOffThisRound() }) { handOffThisRound() }
    }

    /// How many commits wait in `thisRound` for the caller's round to end (for tests of the hook's wiring).
    var commitsWaitingForRoundEnd: Int { thisRound.withLock { $0.count } }

    /// Moves the round's commits to the queue in one step under the queue's lock (taken before `thisRound`'s,
    /// always in that order), so no other hand-over can land between them; the round's buffer keeps its room.
    private func handOffThisRound() {
        let startDrain = state.withLock { state -> Bool in
            thisRound.withLock { round in
                state.queued.append(contentsOf: round)
                round.removeAll(keepingCapacity: round.capacity <= 1024)
            }
            return Self.startDrainIfIdle(&state)
        }
        if startDrain { queue.async { @Sendable in self.drain() } }
    }

    /// Queues `commits` for the next round of appends, starting one if none is running.
    private func handOff(_ commits: some Collection<Queued>) {
        let startDrain = state.withLock { state -> Bool in
            state.queued.append(contentsOf: commits)
            return Self.startDrainIfIdle(&state)
        }
        if startDrain { queue.async { @Sendable in self.drain() } }
    }

    /// Marks the queue draining.
    /// - Returns: true when it was not, and the caller must start the drain.
    private static func startDrainIfIdle(_ state: inout State) -> Bool {
        if state.draining { return false }
        state.draining = true
        return true
    }

    /// Appends every queued commit with one write and one fdatasync, then completes them; repeats until none is
    /// queued. Compacts when the journal has outgrown the snapshot.
    ///
    /// A round starts as soon as the queue is free, with whatever is queued: waiting for more commits first (as
    /// PostgreSQL's `commit_delay` does) measured slower here at every client count tried (protocol/STORAGE.md,
    /// "Group commit").
    private func drain() {
        var roomNeeded = 0
        while true {
            // Room for a round twice as large as the last one, made here rather than by the hand-overs' regrowing it
            // from empty on the event loop; swapped in place, as a second reference to it would make the first
            // hand-over copy it.
            var batch: [Queued] = []
            batch.reserveCapacity(min(roomNeeded * 2, 1024))
            state.withLock { state in
                swap(&batch, &state.queued)
                if batch.isEmpty { state.draining = false }
            }
            roomNeeded = batch.count
            if batch.isEmpty { return }
            finishCompactionIfDone(onQueue())
            let results = append(batch.map(\.commit), onQueue())
            for (queued, result) in zip(batch, results) { queued.completion(result) }
            compactIfDue(onQueue())
            // After the answers, so the zeros are written off the path of the round just saved; not after a failed
            // round, which may mean a full disk.
            if results.contains(where: { if case .success = $0 { true } else { false } }), onQueue().broken == nil {
                onQueue().journal?.preallocate(preallocationBytes)
            }
        }
    }

    func onQueue() -> Disk {
        dispatchPrecondition(condition: .onQueue(queue))
        return confined
    }

    private func append(_ commits: [StoreCommit], _ disk: Disk) -> [Result<Void, StorageError>] {
        guard let stored = disk.revision, let journal = disk.journal else {
            return commits.map { _ in .failure(.corrupt(path: file.path, reason: "commit before load")) }
        }
        if let broken = disk.broken { return commits.map { _ in .failure(broken) } }
        var results: [Result<Void, StorageError>] = []
        results.reserveCapacity(commits.count)
        var applied: [Int] = []
        applied.reserveCapacity(commits.count)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(commits.count * Self.typicalRecordBytes)
        var revision = stored
        for (index, commit) in commits.enumerated() {
            guard commit.base == revision else {
                results.append(.failure(.baseMismatch(expected: commit.base, actual: revision)))
                continue
            }
            commit.forEachChange { JournalFile.appendLine($0, to: &bytes) }
            revision = commit.resultingRevision
            applied.append(index)
            results.append(.success(()))
        }
        guard !applied.isEmpty else { return results }
        do throws(StorageError) {
            try journal.append(bytes)
            disk.revision = revision
            Self.record(applied.map { commits[$0] }, in: disk)
        } catch {
            if journal.damaged { disk.broken = error }
            for index in applied { results[index] = .failure(error) }
        }
        return results
    }

    /// Applies appended commits to `disk.written`. A change that does not fit (the list's own checks make that a
    /// bug) drops the copy rather than let it differ from the files: compaction then reads them back.
    static func record(_ commits: [StoreCommit], in disk: Disk) {
        if disk.compaction != nil {
            disk.compaction?.appended.append(contentsOf: commits)
            return
        }
        guard var written = disk.written else { return }
        disk.written = nil
        for commit in commits {
            var consistent = true
            commit.forEachChange { entry in
                guard consistent, entry.revision == written.revision + 1, written.items.apply(entry.change) else {
                    consistent = false
                    return
                }
                written.revision = entry.revision
            }
            guard consistent else { return }
        }
        disk.written = written
    }
}
