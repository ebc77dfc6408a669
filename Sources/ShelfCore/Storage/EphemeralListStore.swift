import Synchronization

/// The store behind `shelfd --store memory`: it keeps no copy of the list. The `ReadingList` actor's accepted list
/// is the only one and ends with the process, as Redis's data does without persistence; a second copy here would
/// double the cost of every change for nothing.
///
/// It still acts as a store: each commit must follow the last one (`StoreCommit.base` is the revision it reached),
/// or it is refused with `StorageError.baseMismatch`; accepted commits complete inline, before `enqueue` returns.
/// `load()` gives an empty list at revision 0 — load it once, before the first commit.
public final class EphemeralListStore: ListStore {
    private let revision = Mutex<Revision>(0)

    /// A store that starts empty at revision 0.
    public init() {}

    /// An empty list at revision 0; never fails.
    public func load() async throws(StorageError) -> ListSnapshot { ListSnapshot() }

    /// Accepts `commit` if it follows the last accepted one, inline.
    public func enqueue(_ commit: StoreCommit, completion: @escaping @Sendable (Result<Void, StorageError>) -> Void) {
        completion(accept(commit))
    }

    /// Accepts `commit` if it follows the last accepted one; `.baseMismatch` otherwise.
    public func commitNow(_ commit: StoreCommit) -> Result<Void, StorageError>? {
        accept(commit)
    }

    private func accept(_ commit: StoreCommit) -> Result<Void, StorageError> {
        revision.withLock { revision -> Result<Void, StorageError> in
            guard commit.base == revision else { return .failure(.baseMismatch(expected: commit.base, actual: revision)) }
            revision = commit.resultingRevision
            return .success(())
        }
    }
}
