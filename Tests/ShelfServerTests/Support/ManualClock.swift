import ShelfServer
import ShelfTestSupport
import Synchronization
import Testing

/// A `ServerClock` that moves only when the test says (`advance(by:)`): deadlines are tested without waiting real
/// seconds, and without widening them for a loaded machine.
final class ManualClock: ServerClock {
    private struct Pending {
        let id: UInt64
        let deadline: ContinuousClock.Instant
        let action: @Sendable () -> Void
    }

    private struct State {
        var now = ContinuousClock.now
        var pending: [Pending] = []
        var lastID: UInt64 = 0
    }

    private let state = Mutex(State())

    var now: ContinuousClock.Instant { state.withLock { $0.now } }

    func schedule(at deadline: ContinuousClock.Instant, _ action: @escaping @Sendable () -> Void) -> any ServerTimer {
        let id = state.withLock { state -> UInt64 in
            state.lastID += 1
            state.pending.append(Pending(id: state.lastID, deadline: deadline, action: action))
            return state.lastID
        }
        return Timer(clock: self, id: id)
    }

    /// Timers scheduled and neither fired nor cancelled.
    var pendingCount: Int { state.withLock { $0.pending.count } }

    /// How many timers have been scheduled so far (fired and cancelled ones included): a timer scheduled later
    /// has a greater `pendingIDs` entry than this count was before.
    var scheduledCount: UInt64 { state.withLock { $0.lastID } }

    /// The pending timers, each by the order it was scheduled in (1 for the first).
    var pendingIDs: [UInt64] { state.withLock { $0.pending.map(\.id) } }

    /// When each pending timer comes due.
    var pendingDeadlines: [ContinuousClock.Instant] { state.withLock { $0.pending.map(\.deadline) } }

    /// Moves the clock on by `duration`, running each timer that comes due, in deadline order, on this thread (the
    /// server's actions hop to its event loop themselves).
    func advance(by duration: Duration) {
        let target = state.withLock { $0.now + duration }
        while true {
            let due = state.withLock { state -> Pending? in
                guard let next = state.pending.filter({ $0.deadline <= target }).min(by: { $0.deadline < $1.deadline }) else {
                    state.now = target
                    return nil
                }
                state.pending.removeAll { $0.id == next.id }
                state.now = max(state.now, next.deadline)
                return next
            }
            guard let due else { return }
            due.action()
        }
    }

    /// Waits until at least `count` timers are pending: the server has armed its deadlines, so advancing fires them.
    func waitForTimers(_ count: Int) async throws {
        try await withDeadline { try await waitUntil { self.pendingCount >= count } }
    }

    private func cancel(_ id: UInt64) {
        state.withLock { $0.pending.removeAll { $0.id == id } }
    }

    private struct Timer: ServerTimer {
        let clock: ManualClock
        let id: UInt64

        func cancel() {
            clock.cancel(id)
        }
    }
}
