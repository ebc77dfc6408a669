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
        /// Whether the file exists (a missing file is an empty list until the first commit writes it).
        var fileExists = false
        /// The lock that keeps a second `shelfd` off this file, held from `load()` on.
        var lock: StoreLock?
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

    /// Creates missing parent directories, takes the store's lock (`.reading-list.json.lock` beside the file, held
    /// while this store lives), reads the snapshot, and removes a temp file left by a crash.
    /// A missing file is an empty list at revision 0 (the file is created by the first commit).
    /// - Throws: `StorageError` naming the file when it cannot be read or is refused, or `.locked` when another
    ///   process holds the lock; the file is not modified.
    public func load() async throws(StorageError) -> ListSnapshot {
        let file = self.file
        let result: Result<(ListSnapshot, Bool, StoreLock), StorageError> = await withCheckedContinuation { continuation in
            queue.async { @Sendable in
                continuation.resume(returning: Result { () throws(StorageError) in
                    try file.createDirectory()
                    let lock = try StoreLock(path: file.lockPath, guarding: file.path)
                    do throws(StorageError) {
                        guard let data = try file.read() else {
                            file.removeLeftoverTemp()
                            return (ListSnapshot(), false, lock)
                        }
                        let snapshot = try SnapshotCodec.decode(data, path: file.path)
                        file.removeLeftoverTemp()
                        return (snapshot, true, lock)
                    } catch {
                        lock.abandon()
                        throw error
                    }
                })
            }
        }
        let (snapshot, exists, lock) = try result.get()
        state.withLock {
            $0.stored = snapshot
            $0.fileExists = exists
            $0.lock = lock
        }
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
            let (batch, stored, exists) = state.withLock { state -> ([Queued], ListSnapshot?, Bool) in
                let batch = state.queued
                state.queued.removeAll()
                if batch.isEmpty { state.draining = false }
                return (batch, state.stored, state.fileExists)
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
                    let path = file.path
                    try file.replace(with: SnapshotCodec.encode(next, path: path)) {
                        exists ? stored.flatMap { try? SnapshotCodec.encode($0, path: path) } : nil
                    }
                    state.withLock {
                        $0.stored = next
                        $0.fileExists = true
                    }
                } catch {
                    for index in applied { results[index] = .failure(error) }
                }
            }
            for (queued, result) in zip(batch, results) { queued.completion(result) }
        }
    }
}
