import Synchronization

/// A value that one task fulfils once and another awaits: lets a session queue a reply job before the request
/// is submitted to the list (so the job's place in the reply order is fixed first).
final class ReplyPromise<Value: Sendable>: Sendable {
    private let state = Mutex<(value: Value?, waiter: CheckedContinuation<Value, Never>?)>((nil, nil))

    /// Sets the value and wakes the waiter; later calls are ignored.
    func fulfil(_ value: Value) {
        let waiter = state.withLock { state -> CheckedContinuation<Value, Never>? in
            guard state.value == nil else { return nil }
            state.value = value
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: value)
    }

    /// The value, once fulfilled. One awaiter at a time.
    var value: Value {
        get async {
            if let value = state.withLock({ $0.value }) { return value }
            return await withCheckedContinuation { continuation in
                let ready = state.withLock { state -> Value? in
                    if let value = state.value { return value }
                    state.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        }
    }
}
