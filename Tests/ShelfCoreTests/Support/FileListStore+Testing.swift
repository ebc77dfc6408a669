import Dispatch
@testable import ShelfCore

/// The seams tests hold a `FileListStore`'s compactions by, kept out of the product: they reach its queues through
/// `@testable import`.
extension FileListStore {
    /// Holds the compaction queue until the returned closure is called: a compaction that starts meanwhile waits
    /// before it writes anything. (What happens while one runs.)
    func holdCompactions() -> @Sendable () -> Void {
        let gate = DispatchSemaphore(value: 0)
        compactionQueue.async { @Sendable in gate.wait() }
        return { gate.signal() }
    }

    /// Suspends until no compaction is running or about to finish, and everything queued before has been stored
    /// (commits still waiting in `thisRound` for their round's end are not queued yet). (A test looks at the
    /// files after a compaction.)
    func waitUntilCompacted() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async { @Sendable [self] in
                compactionQueue.async { @Sendable [self] in
                    queue.async { @Sendable in continuation.resume() }
                }
            }
        }
    }
}
