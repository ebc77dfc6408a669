import Dispatch
import Foundation
import Synchronization

/// A durable store: the whole list as one JSON snapshot file (protocol/STORAGE.md), replaced atomically on every
/// commit. A commit completes only after the new file and its directory entry are fsynced.
///
/// All file I/O runs on one serial dispatch queue, never on the cooperative pool. Commits that queue up while a
/// write is in progress are applied together and written once (group commit).
public final class FileListStore: ListStore {
    private struct Queued {
        let commit: StoreCommit
        let completion: @Sendable (Result<Void, StorageError>) -> Void
    }

    private struct State {
        var queued: [Queued] = []
        var draining = false
        /// The list as stored on disk; `nil` until `load()` succeeded.
        var stored: ListSnapshot?
    }

    private let file: SnapshotFile
    private let queue = DispatchQueue(label: "shelf.file-store")
    private let state = Mutex(State())

    /// The snapshot's path.
    public var path: String { file.path }

    /// A store for the snapshot at `path`. Nothing is touched until `load()`.
    /// - Parameter faults: test-only fault injection for the write, fsync and rename steps.
    public init(path: String, faults: FileFaults? = nil) {
        file = SnapshotFile(path: path, faults: faults)
    }

    /// Creates missing parent directories, removes a temp file left by a crash, and reads the snapshot.
    /// A missing file is an empty list at revision 0 (the file is created by the first commit).
    /// - Throws: `StorageError` naming the file when it cannot be read or is refused; the file is not modified.
    public func load() async throws(StorageError) -> ListSnapshot {
        let file = self.file
        let result: Result<ListSnapshot, StorageError> = await withCheckedContinuation { continuation in
            queue.async { @Sendable in
                continuation.resume(returning: Result { () throws(StorageError) in
                    try file.createDirectory()
                    file.removeLeftoverTemp()
                    guard let data = try file.read() else { return ListSnapshot() }
                    return try SnapshotCodec.decode(data, path: file.path)
                })
            }
        }
        let snapshot = try result.get()
        state.withLock { $0.stored = snapshot }
        return snapshot
    }

    public func enqueue(_ commit: StoreCommit, completion: @escaping @Sendable (Result<Void, StorageError>) -> Void) {
        let startDrain = state.withLock { state -> Bool in
            state.queued.append(Queued(commit: commit, completion: completion))
            if state.draining { return false }
            state.draining = true
            return true
        }
        if startDrain { queue.async { @Sendable in self.drain() } }
    }

    /// Writes every queued commit in one snapshot replacement, then completes them; repeats until none is queued.
    private func drain() {
        while true {
            let (batch, stored) = state.withLock { state -> ([Queued], ListSnapshot?) in
                let batch = state.queued
                state.queued.removeAll()
                if batch.isEmpty { state.draining = false }
                return (batch, state.stored)
            }
            if batch.isEmpty { return }
            guard var next = stored else {
                let error = StorageError.corrupt(path: file.path, reason: "commit before load")
                batch.forEach { $0.completion(.failure(error)) }
                continue
            }
            var results: [Result<Void, StorageError>] = []
            var applied: [Int] = []
            for (index, queued) in batch.enumerated() {
                do throws(StorageError) {
                    try next.apply(queued.commit, path: file.path)
                    applied.append(index)
                    results.append(.success(()))
                } catch {
                    results.append(.failure(error))
                }
            }
            if !applied.isEmpty {
                do throws(StorageError) {
                    try file.replace(with: SnapshotCodec.encode(next, path: file.path))
                    state.withLock { $0.stored = next }
                } catch {
                    for index in applied { results[index] = .failure(error) }
                }
            }
            for (queued, result) in zip(batch, results) { queued.completion(result) }
        }
    }
}
