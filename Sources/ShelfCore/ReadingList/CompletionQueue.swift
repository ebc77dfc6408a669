import Synchronization

/// Carries a store's later completions (from its own thread) to the `ReadingList` actor in groups: everything that
/// arrived since the actor last looked is taken in one go, so a group commit's answers are published by one actor
/// call, and a watcher gets the group's changes together.
final class CompletionQueue: Sendable {
    private struct State {
        var queued = FrontQueue<ReadingList.Completion>()
        var waiter: CheckedContinuation<[ReadingList.Completion]?, Never>?
        var finished = false
    }

    private let state = Mutex(State())

    /// Store thread: queues one completion, in the order the store produced them.
    func push(_ completion: ReadingList.Completion) {
        let resumed = state.withLock { state -> (CheckedContinuation<[ReadingList.Completion]?, Never>, [ReadingList.Completion])? in
            guard !state.finished else { return nil }
            guard let waiter = state.waiter else {
                state.queued.append(completion)
                return nil
            }
            state.waiter = nil
            return (waiter, [completion])
        }
        if let (waiter, batch) = resumed { waiter.resume(returning: batch) }
    }

    /// Completions held in storage, taken ones not yet dropped included (for tests).
    var storedCount: Int { state.withLock { $0.queued.storedCount } }

    /// No more completions will be taken; a waiting `next()` returns `nil`.
    func finish() {
        let waiter = state.withLock { state -> CheckedContinuation<[ReadingList.Completion]?, Never>? in
            state.finished = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: nil)
    }

    /// The completions queued so far, in order, at most `limit` of them, waiting for one if there is none; `nil`
    /// once finished. One caller at a time.
    func next(limit: Int) async -> [ReadingList.Completion]? {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> [ReadingList.Completion]?? in
                // Taken in slices, so one group commit is not answered in one long actor turn (`ReadingList.init`).
                if !state.queued.isEmpty { return .some(state.queued.removeFirst(max(1, limit))) }
                if state.finished { return .some(nil) }
                state.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}
