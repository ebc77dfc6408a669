import Dispatch
import Foundation
import Synchronization

/// An ephemeral store: the list lives in memory only (`shelfd --store memory`, and tests).
///
/// Tests can make writes fail on demand (`failWrites`) and count write attempts (`writeAttempts`).
/// Every commit completes inline, before `enqueue` returns.
public final class MemoryListStore: ListStore {
    private struct State {
        var stored: ListSnapshot
        var failWrites = false
        var writeAttempts = 0
    }

    private let state: Mutex<State>
    /// What `loadStored()` reports as the list's identity.
    public let identity: UUID

    /// A store that starts with `initial` (empty at revision 0 by default), as the list `identity` (a new random
    /// one by default; tests that compare `hello` replies byte for byte pass a fixed one).
    public init(initial: ListSnapshot = ListSnapshot(), identity: UUID = UUID.random()) {
        state = Mutex(State(stored: initial))
        self.identity = identity
    }

    /// The list as stored now.
    public var stored: ListSnapshot { state.withLock { $0.stored } }

    /// How many commits have been attempted (successful or not).
    public var writeAttempts: Int { state.withLock { $0.writeAttempts } }

    /// While true, every commit fails with `StorageError.injected` and stores nothing.
    public var failWrites: Bool {
        get { state.withLock { $0.failWrites } }
        set { state.withLock { $0.failWrites = newValue } }
    }

    /// The list as stored now (the `initial` one at first); never fails.
    public func load() async throws(StorageError) -> ListSnapshot { stored }

    /// `load()`, with `identity`.
    public func loadStored() async throws(StorageError) -> StoredList { StoredList(snapshot: stored, identity: identity) }

    /// Applies `commit` (or fails it, while `failWrites`) and completes it inline, before returning.
    public func enqueue(_ commit: StoreCommit, completion: @escaping @Sendable (Result<Void, StorageError>) -> Void) {
        completion(apply(commit))
    }

    /// Applies `commit`, or fails it while `failWrites`.
    public func commitNow(_ commit: StoreCommit) -> Result<Void, StorageError>? {
        apply(commit)
    }

    private func apply(_ commit: StoreCommit) -> Result<Void, StorageError> {
        state.withLock { state -> Result<Void, StorageError> in
            state.writeAttempts += 1
            if state.failWrites { return .failure(.injected("memory store write")) }
            return Result { () throws(StorageError) in try state.stored.apply(commit, path: "memory") }
        }
    }
}
