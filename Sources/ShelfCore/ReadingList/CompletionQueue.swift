import Synchronization

/// Carries a store's later completions (from its own thread) to the `ReadingList` actor in groups: everything that
/// arrived since the actor last looked is taken in one go, so a group commit's answers are published by one actor
/// call, and a watcher gets the group's changes together.
///
/// A drain runs only while completions are queued: the first `push` after the queue went idle says so, and the
/// list starts a task that `take`s until nothing is left. So no task waits here for the list's whole life, and
/// nothing here refers back to the list (a task that outlived it would need a weak reference, which makes every
/// retain of the list take the runtime's slow path).
final class CompletionQueue: Sendable {
    private struct State {
        var queued = FrontQueue<ReadingList.Completion>()
        /// A drain has been started and has not yet found the queue empty.
        var draining = false
    }

    private let state = Mutex(State())

    /// Store thread: queues one completion, in the order the store produced them.
    /// - Returns: true when no drain is running: the caller must start one (exactly one push returns true per
    ///   drain).
    func push(_ completion: ReadingList.Completion) -> Bool {
        state.withLock { state in
            state.queued.append(completion)
            if state.draining { return false }
            state.draining = true
            return true
        }
    }

    /// Completions held in storage, taken ones not yet dropped included (for tests).
    var storedCount: Int { state.withLock { $0.queued.storedCount } }

    /// The drain: the completions queued so far, in order, at most `limit` of them; `nil` when none is left, which
    /// ends the drain (the next `push` starts another). One drain at a time.
    func take(limit: Int) -> [ReadingList.Completion]? {
        state.withLock { state in
            // Taken in slices, so one group commit is not answered in one long actor turn (`ReadingList`).
            if !state.queued.isEmpty { return state.queued.removeFirst(max(1, limit)) }
            state.draining = false
            return nil
        }
    }
}
