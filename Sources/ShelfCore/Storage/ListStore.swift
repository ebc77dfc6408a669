import Foundation

/// A loaded list and the identity of the stored list it comes from (`ListStore.loadStored()`).
public struct StoredList: Sendable, Equatable {
    /// The list as loaded.
    public var snapshot: ListSnapshot
    /// Tells this stored list from any other: kept by the store across restarts (protocol/STORAGE.md, "Identity").
    public var identity: UUID

    /// A loaded list and its identity.
    public init(snapshot: ListSnapshot, identity: UUID) {
        self.snapshot = snapshot
        self.identity = identity
    }
}

/// Durable (or not) storage for one list: load it once, then commit changes on top of a revision.
///
/// Adapters: `MemoryListStore` (ephemeral, for tests and `--store memory`) and `FileListStore` (a snapshot plus an
/// append-only journal, compacted; protocol/STORAGE.md). Blocking I/O and fsync never run on the cooperative thread pool.
public protocol ListStore: Sendable {
    /// Loads the stored list; a store that does not exist yet is an empty list at revision 0.
    /// - Throws: `StorageError` when the data cannot be read or is refused (corrupt, duplicate ids, unknown format);
    ///   the stored data is left untouched.
    func load() async throws(StorageError) -> ListSnapshot

    /// `load()`, with the identity of the stored list (protocol/STORAGE.md, "Identity"; reported by `hello` as
    /// `list`, protocol/PROTOCOL.md §5): the same across restarts for a store that keeps the list, a new random one
    /// for each start of a store that keeps nothing (the default).
    /// - Throws: as `load()`.
    func loadStored() async throws(StorageError) -> StoredList

    /// Queues `commit`; commits are applied in the order `enqueue` is called, and the store may group several
    /// queued commits into one write (group commit).
    ///
    /// `completion` runs exactly once, when the commit is stored (`.success`) or refused or failed (`.failure`, and
    /// then the stored list is as it was before this commit): either inline, before `enqueue` returns (a store that
    /// never waits, like the memory store), or later on the store's own thread — one or the other for every commit
    /// of a store, in commit order. `enqueue` itself never blocks on I/O.
    func enqueue(_ commit: StoreCommit, completion: @escaping @Sendable (Result<Void, StorageError>) -> Void)
    /// Stores `commit` at once, for a store that completes every commit inline: the result `enqueue` would hand its
    /// completion, without the completion (the memory stores; it spares a closure and a hand-off per change).
    /// - Returns: `nil` for a store that completes commits later (call `enqueue`); nothing is stored then.
    func commitNow(_ commit: StoreCommit) -> Result<Void, StorageError>?
}

extension ListStore {
    /// `load()` with a new random identity: a store that keeps nothing is a new list at every start.
    public func loadStored() async throws(StorageError) -> StoredList {
        StoredList(snapshot: try await load(), identity: UUID.random())
    }

    /// `nil`: the store completes its commits later, through `enqueue`.
    public func commitNow(_ commit: StoreCommit) -> Result<Void, StorageError>? { nil }
}
