import ShelfCore
import Synchronization

/// A `MemoryListStore` whose commits wait behind a gate: while closed, `enqueue` only records the commit, so a test
/// can hold a save "in flight" for as long as it likes and then `open()` it. No timing involved.
final class GatedListStore: ListStore {
    typealias Completion = @Sendable (Result<Void, StorageError>) -> Void

    private struct State {
        var isOpen = false
        var held: [(StoreCommit, Completion)] = []
        var enqueued = 0
    }

    let inner = MemoryListStore(identity: TestServer.listID)
    private let state = Mutex(State())

    /// How many commits have been enqueued so far (held or passed on).
    var enqueuedCount: Int { state.withLock { $0.enqueued } }

    func load() async throws(StorageError) -> ListSnapshot {
        try await inner.load()
    }

    func enqueue(_ commit: StoreCommit, completion: @escaping Completion) {
        state.withLock { state in
            state.enqueued += 1
            if state.isOpen {
                inner.enqueue(commit, completion: completion)
            } else {
                state.held.append((commit, completion))
            }
        }
    }

    /// Passes every held commit on, in order, and lets later ones through at once.
    func open() {
        state.withLock { state in
            state.isOpen = true
            for (commit, completion) in state.held {
                inner.enqueue(commit, completion: completion)
            }
            state.held.removeAll()
        }
    }
}
