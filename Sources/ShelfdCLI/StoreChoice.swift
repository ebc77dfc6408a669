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
    /// hands `log` a line (`logLine(for:)`) when a compaction fails, and when one succeeds after failures.
    func makeStore(log: @escaping @Sendable (String) -> Void = { _ in }) -> any ListStore {
        switch self {
        case .file(let path):
            FileListStore(
                path: path, roundEnd: Self.eventLoopRoundEnd, compactionEvents: { log(Self.logLine(for: $0)) })
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
