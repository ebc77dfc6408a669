import ShelfCommandLine
import ShelfCore
import ShelfServer
import ShelfSockets

/// Which store `shelfd` serves (`--store file:PATH|memory`).
public enum StoreChoice: Sendable, Equatable {
    /// A snapshot file and its journal (protocol/STORAGE.md).
    case file(path: String)
    /// Nothing is kept after the server stops.
    case memory

    /// Parses `file:PATH` or `memory`.
    /// - Throws: `UsageError` for anything else, an empty path, or one that can only name a directory (ending in
    ///   `/`, `.` or `..`).
    init(parsing text: String) throws(UsageError) {
        if text == "memory" {
            self = .memory
        } else if text.hasPrefix("file:"), text.count > 5 {
            let path = String(text.dropFirst(5))
            // Such a path names a directory, and so no file: with a link there, `list.json/` was a second store
            // beside the one `list.json` names, each with its own lock.
            let last = path.split(separator: "/", omittingEmptySubsequences: false).last ?? ""
            guard !last.isEmpty, last != ".", last != ".." else {
                throw UsageError("--store file:PATH needs the path of a file, not of a directory (\"\(path)\")")
            }
            self = .file(path: path)
        } else {
            throw UsageError("--store takes file:PATH or memory, not \"\(text)\"")
        }
    }

    /// Makes the store. A file store takes the commits of one round of the event loop together, at its end, and
    /// hands `log` a line (`logLine(for:)`) when a compaction fails, when one succeeds after failures, when its
    /// start cuts a torn tail off the journal and when it compacts at start.
    func makeStore(log: @escaping @Sendable (String) -> Void = { _ in }) -> any ListStore {
        switch self {
        case .file(let path):
            FileListStore(
                path: path, roundEnd: Self.eventLoopRoundEnd, compactionEvents: { log(Self.logLine(for: $0)) },
                loadEvents: { log(Self.logLine(for: $0)) })
        case .memory: EphemeralListStore()
        }
    }

    /// The log line for a compaction event. A failure loses nothing, but the journal grows until a compaction
    /// succeeds, and a disk that stays full fails the saves next.
    static func logLine(for event: CompactionEvent) -> String {
        switch event {
        case .failed(let error):
            "a compaction failed (\(error)): no change was lost, the journal keeps them all and grows until a "
                + "compaction succeeds (tried again once it has doubled); if the disk is full, free some space, or "
                + "saves will fail next"
        case .stoppedWrites(let error):
            "a compaction failed while cutting the journal (\(error)): no acknowledged change was lost, but the "
                + "journal's length is unknown, so every change is refused (storage_failed) until shelfd is "
                + "restarted; fix the cause, then restart it"
        case .recovered(let failures):
            "a compaction succeeded after \(ServerLog.count(failures, "failure")): the journal is back to its usual size"
        }
    }

    /// The log line for a load event. A cut tail is usually a crash's unacknowledged write, but a whole last record
    /// that fails its checksum may be an acknowledged change damaged on disk: the operator must hear of either.
    static func logLine(for event: LoadEvent) -> String {
        switch event {
        case .cutTornTail(let cut):
            let named = cut.droppedRevision.map { " (it names revision \($0))" } ?? ""
            return "cut a torn tail off \(cut.path): dropped \(cut.droppedBytes) byte(s) in \(cut.droppedLines) line(s) from "
                + "line \(cut.firstDroppedLine)\(named), which \(cut.reason); kept \(cut.keptRecords) record(s), "
                + "\(cut.keptBytes) byte(s), the list at revision \(cut.keptRevision). A crash during a write leaves such a "
                + "tail, never acknowledged; without a crash the file was damaged: check the disk (the next change takes "
                + "revision \(cut.keptRevision + 1) again)"
        case .compactedAtStart(let journalBytes, let snapshotBytes):
            return "compacted at start: the journal's \(journalBytes) byte(s) went into a snapshot of \(snapshotBytes) byte(s)"
        }
    }

    /// The file store's `roundEnd` hook: a commit made on the event loop is handed over once the loop's round ends
    /// (with the round's other commits, for one fdatasync); one made elsewhere, at once.
    static let eventLoopRoundEnd: @Sendable (@escaping @Sendable () -> Void) -> Bool = {
        Reactor.shared.executor.afterRound($0)
    }

    /// How the store is named in logs: `file /path/to/reading-list.json` or `memory`.
    var summary: String {
        switch self {
        case .file(let path): "file \(path)"
        case .memory: "memory (nothing is saved)"
        }
    }
}
