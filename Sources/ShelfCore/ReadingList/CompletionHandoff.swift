import Synchronization

/// Carries one store commit's completion back to its `ReadingList`: keeps it for the actor when the store
/// completed inline, inside `enqueue`; otherwise pushes it on the list's completion queue (`CompletionQueue`), in
/// order. An inline completion is handled by the actor at once, saving the hops through that queue. (The memory
/// stores skip this: they answer `commitNow`.)
///
/// One object per commit, which the store's completion closure captures alone: the closure then needs no context
/// of its own (the commit's only allocation on the event loop besides the store's).
final class CompletionHandoff: Sendable {
    private enum State {
        case enqueuing
        case completedInline(Result<Void, StorageError>)
        case later
    }

    private let state = Mutex(State.enqueuing)
    /// The store holds the list (through this) until it completes the commit, so a drain it starts always has its
    /// list; stores complete every commit (`ListStore`).
    private let list: ReadingList
    private let ticket: UInt64
    private let generation: UInt64
    /// False when saves completed later are still outstanding: an inline result then takes the completion queue
    /// too, so completions stay in order.
    private let inlineAllowed: Bool

    init(list: ReadingList, ticket: UInt64, generation: UInt64, inlineAllowed: Bool) {
        self.list = list
        self.ticket = ticket
        self.generation = generation
        self.inlineAllowed = inlineAllowed
    }

    /// The store's completion, from whatever thread the store completes on.
    func storeCompleted(_ result: Result<Void, StorageError>) {
        if inlineAllowed, keepIfInline(result) { return }
        if list.completions.push(ReadingList.Completion(ticket: ticket, generation: generation, result: result)) {
            list.drainCompletions()
        }
    }

    /// Keeps `result` for the actor if `enqueue` has not returned yet.
    /// - Returns: false when the completion must deliver `result` itself (through the completion queue).
    private func keepIfInline(_ result: Result<Void, StorageError>) -> Bool {
        state.withLock { state in
            guard case .enqueuing = state else { return false }
            state = .completedInline(result)
            return true
        }
    }

    /// Called by the actor once `enqueue` returned: the inline result, if there was one; otherwise later
    /// completions go through the completion queue.
    func enqueueReturned() -> Result<Void, StorageError>? {
        state.withLock { state in
            if case .completedInline(let result) = state { return result }
            state = .later
            return nil
        }
    }
}
