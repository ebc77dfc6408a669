import ShelfCore
import Synchronization

/// A store that only records what it is asked to save; the test completes each commit by hand, in any order.
///
/// Every `enqueue` is also sent to `enqueued`, so a test can await "the request reached the store" without sleeping.
final class ManualStore: ListStore {
    /// One commit handed to the store and not yet completed by the test.
    struct Pending: Sendable {
        let commit: StoreCommit
        let completion: @Sendable (Result<Void, StorageError>) -> Void

        func succeed() { completion(.success(())) }
        func fail(_ error: StorageError = .injected("manual store write")) { completion(.failure(error)) }
    }

    /// Every enqueued commit, in enqueue order.
    let enqueued: AsyncStream<Pending>
    private let continuation: AsyncStream<Pending>.Continuation
    private let initial: ListSnapshot
    private let count = Mutex(0)

    init(initial: ListSnapshot = ListSnapshot()) {
        self.initial = initial
        (enqueued, continuation) = AsyncStream.makeStream(of: Pending.self)
    }

    /// How many commits were enqueued.
    var enqueueCount: Int { count.withLock { $0 } }

    func load() async throws(StorageError) -> ListSnapshot { initial }

    func enqueue(_ commit: StoreCommit, completion: @escaping @Sendable (Result<Void, StorageError>) -> Void) {
        count.withLock { $0 += 1 }
        continuation.yield(Pending(commit: commit, completion: completion))
    }
}
