import Synchronization

/// Tells whether a store completed a commit inline, inside `enqueue`, or later on its own thread (the file store).
/// An inline completion is handled by the actor at once, saving the hops through the completion queue; a later one
/// goes through the queue (`CompletionQueue`), in order. (The memory stores skip this: they answer `commitNow`.)
final class CompletionHandoff: Sendable {
    private enum State {
        case enqueuing
        case completedInline(Result<Void, StorageError>)
        case later
    }

    private let state = Mutex(State.enqueuing)

    /// Called by the completion: keeps `result` for the actor if `enqueue` has not returned yet.
    /// - Returns: false when the completion must deliver `result` itself (through the completion queue).
    func keepIfInline(_ result: Result<Void, StorageError>) -> Bool {
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
