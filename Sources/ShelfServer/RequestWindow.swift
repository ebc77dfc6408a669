import Synchronization

/// Bounds the requests one session has read but not yet answered (shared/design.md, invariant 8): the reader
/// `acquire`s a slot per request and suspends while none is free; the writer `release`s it after answering.
final class RequestWindow: Sendable {
    private struct State {
        var free: Int
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state: Mutex<State>
    /// The most requests read but not yet answered.
    let size: Int

    init(size: Int) {
        self.size = max(1, size)
        state = Mutex(State(free: self.size))
    }

    /// Takes a slot, suspending until one is free. Only the reader calls it, so there is at most one waiter.
    nonisolated(nonsending) func acquire() async {
        let acquired = state.withLock { state -> Bool in
            guard state.free > 0 else { return false }
            state.free -= 1
            return true
        }
        if acquired { return }
        await withCheckedContinuation { continuation in
            let resumeNow = state.withLock { state -> Bool in
                if state.free > 0 {
                    state.free -= 1
                    return true
                }
                state.waiter = continuation
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    /// Takes `count` slots if that many are free now, without waiting.
    func tryAcquire(_ count: Int) -> Bool {
        state.withLock { state in
            guard state.free >= count else { return false }
            state.free -= count
            return true
        }
    }

    /// Frees `count` slots under one lock (a pipelined run gives back many at once); one of them goes straight to
    /// a waiting reader.
    func release(_ count: Int) {
        guard count > 0 else { return }
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.free += count
            guard let waiter = state.waiter else { return nil }
            state.waiter = nil
            state.free -= 1
            return waiter
        }
        waiter?.resume()
    }

    /// Frees a slot; hands it straight to a waiting reader.
    func release() {
        release(1)
    }

    /// Whether a reader is parked in `acquire()` (for tests).
    var hasWaiter: Bool {
        state.withLock { $0.waiter != nil }
    }
}
