import ShelfSockets
import Synchronization

/// The clock a server's deadlines run on: the idle timeout, the write deadline, the authentication deadline, the
/// linger after the last reply and the guess slowdown. `LoopClock` in `shelfd`; tests drive one of their own, so
/// no test waits real seconds for a timeout.
public protocol ServerClock: Sendable {
    /// The current instant.
    var now: ContinuousClock.Instant { get }
    /// Calls `action` once `deadline` has passed, unless the timer is cancelled first. `action` runs on the
    /// event loop thread for `LoopClock`; it must not block.
    func schedule(at deadline: ContinuousClock.Instant, _ action: @escaping @Sendable () -> Void) -> any ServerTimer
}

/// A timer of a `ServerClock`.
public protocol ServerTimer: Sendable {
    /// Drops the timer unless it has fired. Idempotent.
    func cancel()
}

extension ReactorTimer: ServerTimer {}

/// The event loop's own timers (`ReactorExecutor.schedule(after:_:)`, a heap that sets `epoll_wait`'s timeout).
public struct LoopClock: ServerClock {
    public init() {}

    public var now: ContinuousClock.Instant { .now }

    public func schedule(at deadline: ContinuousClock.Instant, _ action: @escaping @Sendable () -> Void) -> any ServerTimer {
        Reactor.shared.executor.schedule(after: max(.zero, deadline - .now), action)
    }
}

extension ServerClock {
    /// `schedule(at:_:)` `delay` from now.
    func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> any ServerTimer {
        schedule(at: now + delay, action)
    }

    /// Suspends the calling task until `deadline`.
    /// - Throws: `CancellationError` as soon as the task is cancelled.
    func sleep(until deadline: ContinuousClock.Instant, isolation: isolated (any Actor)? = #isolation) async throws(CancellationError) {
        let wake = Wake()
        let timer = schedule(at: deadline) { wake.finish(fired: true) }
        let fired = await withTaskCancellationHandler(
            operation: { await withCheckedContinuation(isolation: isolation) { wake.wait($0) } },
            onCancel: {
                timer.cancel()
                wake.finish(fired: false)
            },
            isolation: isolation)
        if !fired { throw CancellationError() }
    }
}

/// Where a sleeping task and its timer (or its cancellation) meet: whichever comes first decides.
private final class Wake: Sendable {
    private let state = Mutex<(fired: Bool?, waiter: CheckedContinuation<Bool, Never>?)>((nil, nil))

    func wait(_ continuation: CheckedContinuation<Bool, Never>) {
        let fired = state.withLock { state -> Bool? in
            if state.fired == nil { state.waiter = continuation }
            return state.fired
        }
        if let fired { continuation.resume(returning: fired) }
    }

    func finish(fired: Bool) {
        let waiter = state.withLock { state -> CheckedContinuation<Bool, Never>? in
            guard state.fired == nil else { return nil }
            state.fired = fired
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: fired)
    }
}
