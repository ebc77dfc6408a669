import ShelfSockets

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
    /// The clock; it holds nothing (the timers are the reactor's).
    public init() {}

    /// `ContinuousClock.now`.
    public var now: ContinuousClock.Instant { .now }

    /// A reactor timer that runs `action` on the loop thread once `deadline` has passed (at once when it has).
    public func schedule(at deadline: ContinuousClock.Instant, _ action: @escaping @Sendable () -> Void) -> any ServerTimer {
        Reactor.shared.executor.schedule(after: max(.zero, deadline - .now), action)
    }
}

extension ServerClock {
    /// `schedule(at:_:)` `delay` from now.
    func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> any ServerTimer {
        schedule(at: now + delay, action)
    }
}
