import Synchronization

/// Readiness of one direction (read or write) of one registered socket: a `ready` flag plus at most one parked
/// waiter, both guarded by a `Mutex`.
///
/// Protocol (no lost wakeups): an operation tries its syscall first; on `EAGAIN` it calls `wait()`, which under
/// the lock either consumes a `ready` flag set by the reactor in the meantime (the caller then retries the
/// syscall) or parks the continuation. The reactor thread calls `signal()`, which resumes the parked waiter or
/// sets `ready`. A stale `ready` flag costs at most one extra syscall that returns `EAGAIN` again.
///
/// The continuation is an `UnsafeContinuation`: the waiter is parked and taken under the lock, so exactly one of
/// `signal()`, `close()` and the cancellation handler resumes it, once; the checked kind would only add an
/// allocation and a check per wait on the path of every request.
///
/// - Important: one waiter at a time. A second concurrent `wait()` on the same gate is a programming error
///   (one reader and one writer per connection) and stops the process with a precondition failure.
final class ReadinessGate: Sendable {
    private struct Waiter {
        let token: UInt64
        let continuation: UnsafeContinuation<Void, any Error>
    }

    private struct State {
        var ready = false
        var closed = false
        var waiter: Waiter?
        /// A parked callback (`whenReady(_:)`), called instead of resuming a task.
        var callback: (@Sendable () -> Void)?
        var lastToken: UInt64 = 0
    }

    private let state = Mutex(State())
    private let direction: StaticString

    /// - Parameter direction: `"read"` or `"write"`, used in diagnostics.
    init(direction: StaticString) {
        self.direction = direction
    }

    /// Suspends until the reactor reports readiness.
    /// - Throws: `SocketError.closed` if the gate is or becomes closed; `CancellationError` if the task is
    ///   cancelled while parked (a readiness already recorded wins over cancellation).
    nonisolated(nonsending) func wait() async throws {
        let token = state.withLock { state in
            state.lastToken &+= 1
            return state.lastToken
        }
        try await withTaskCancellationHandler {
            try await park(token)
        } onCancel: {
            cancelWaiter(token)
        }
    }

    /// Parks the caller until `signal()`, `close()` or a cancellation handler resumes it; returns at once when
    /// readiness is already recorded.
    private nonisolated(nonsending) func park(_ token: UInt64) async throws {
        try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<Void, any Error>) in
            let immediate: Result<Void, any Error>? = state.withLock { state in
                if state.closed { return .failure(SocketError.closed) }
                if state.ready {
                    state.ready = false
                    return .success(())
                }
                // Checked under the lock: a cancellation handler that ran before this point has already
                // made `isCancelled` true; one that runs later finds the parked waiter.
                if Task.isCancelled { return .failure(CancellationError()) }
                precondition(state.waiter == nil, "concurrent \(direction) on one socket is not supported")
                state.waiter = Waiter(token: token, continuation: continuation)
                return nil
            }
            if let immediate { continuation.resume(with: immediate) }
        }
    }

    /// A cancellation handler: resumes the parked waiter with `CancellationError` when it is the wait `token`.
    private func cancelWaiter(_ token: UInt64) {
        let cancelled = state.withLock { state -> UnsafeContinuation<Void, any Error>? in
            guard let waiter = state.waiter, waiter.token == token else { return nil }
            state.waiter = nil
            return waiter.continuation
        }
        cancelled?.resume(throwing: CancellationError())
    }

    /// Calls `action` once at the next readiness, on the reactor thread, or when the gate closes; no task waits
    /// meanwhile (a session's writes: it flushes again when the socket takes more).
    /// - Returns: false, keeping nothing, when readiness is recorded already or the gate is closed: try the
    ///   syscall again now.
    func whenReady(_ action: @escaping @Sendable () -> Void) -> Bool {
        state.withLock { state in
            if state.closed { return false }
            if state.ready {
                state.ready = false
                return false
            }
            state.callback = action
            return true
        }
    }

    /// Reactor thread: readiness arrived; wakes the parked waiter (or calls the parked callback) or remembers it.
    func signal() {
        let (woken, callback) = state.withLock { state -> (UnsafeContinuation<Void, any Error>?, (@Sendable () -> Void)?) in
            guard !state.closed else { return (nil, nil) }
            let callback = state.callback
            state.callback = nil
            guard let waiter = state.waiter else {
                // Remembered for a later wait unless a callback took it.
                if callback == nil { state.ready = true }
                return (nil, callback)
            }
            state.waiter = nil
            return (waiter.continuation, callback)
        }
        woken?.resume()
        callback?()
    }

    /// Closes the gate for good: a parked waiter and every later `wait()` throw `SocketError.closed`.
    func close() {
        let (woken, callback) = state.withLock { state -> (UnsafeContinuation<Void, any Error>?, (@Sendable () -> Void)?) in
            state.closed = true
            state.ready = false
            defer {
                state.waiter = nil
                state.callback = nil
            }
            return (state.waiter?.continuation, state.callback)
        }
        woken?.resume(throwing: SocketError.closed)
        callback?()
    }

    /// True while readiness is recorded but not yet consumed (for tests and diagnostics).
    var isReady: Bool {
        state.withLock { $0.ready }
    }

    /// True while a waiter is parked (for tests and diagnostics).
    var hasWaiter: Bool {
        state.withLock { $0.waiter != nil }
    }
}
