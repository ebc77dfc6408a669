import CEpoll
import Glibc
import Synchronization

/// The jobs waiting for the reactor thread, from its task executor and its serial executor alike, in the order
/// they were enqueued, and the loop's timers; wakes the thread out of `epoll_wait` when it sleeps.
final class ReactorJobQueue: Sendable {
    /// One job, and whether it runs isolated to the serial executor (an actor's job) or only on the loop (a task's).
    struct Queued: Sendable {
        let job: UnownedJob
        let isolated: Bool
    }

    private struct State {
        var jobs: [Queued] = []
        /// The reactor thread is in (or about to enter) an epoll wait without timeout: an enqueue must wake it.
        var sleeping = false
        /// While `sleeping`: the deadline the wait ends at (nil: no timeout). An earlier timer must wake it.
        var sleepingUntil: ContinuousClock.Instant?
        var stopped = false
        var timers = ReactorTimers()
    }

    private let state = Mutex(State())
    private let wakeFD: Int32
    /// The loop thread (`pthread_self()`), once it runs.
    private let loopThread = Atomic<UInt>(0)

    init(wakeFD: Int32) {
        self.wakeFD = wakeFD
    }

    /// Queues `job`; one `eventfd` write when the reactor sleeps. Any thread.
    func push(_ job: UnownedJob, isolated: Bool) {
        let wake = state.withLock { state -> Bool in
            state.jobs.append(Queued(job: job, isolated: isolated))
            defer { state.sleeping = false }
            return state.sleeping && !state.stopped
        }
        if wake { _ = eventfd_write(wakeFD, 1) }
    }

    /// True on the reactor thread once its loop runs.
    var isLoopThread: Bool {
        loopThread.load(ordering: .relaxed) == UInt(pthread_self())
    }

    func loopStarted() {
        loopThread.store(UInt(pthread_self()), ordering: .relaxed)
    }

    /// See `ReactorExecutor.prepareToWait()`.
    func prepareToWait() -> Int32 {
        state.withLock { state in
            if !state.jobs.isEmpty { return 0 }
            state.sleeping = true
            state.sleepingUntil = state.timers.earliest()
            guard let deadline = state.sleepingUntil else { return -1 }
            return Self.milliseconds(until: deadline)
        }
    }

    /// The `epoll_wait` timeout that ends at or just after `deadline`: whole milliseconds, rounded up (a wait
    /// rounded down would wake early and spin until the deadline).
    static func milliseconds(until deadline: ContinuousClock.Instant) -> Int32 {
        let (seconds, attoseconds) = (deadline - .now).components
        guard seconds >= 0, attoseconds >= 0 else { return 0 }
        let milliseconds = seconds.multipliedReportingOverflow(by: 1000)
        let rest = (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        guard !milliseconds.overflow else { return Int32.max }
        return Int32(clamping: milliseconds.partialValue + rest)
    }

    /// Schedules `action` to run on the loop thread at `deadline`; wakes the thread when it sleeps past it. Any
    /// thread.
    /// - Returns: the timer's id, for `cancelTimer(_:)`.
    func schedule(at deadline: ContinuousClock.Instant, _ action: @escaping @Sendable () -> Void) -> UInt64 {
        let (id, wake) = state.withLock { state -> (UInt64, Bool) in
            let id = state.timers.schedule(at: deadline, action)
            guard state.sleeping, !state.stopped else { return (id, false) }
            if let until = state.sleepingUntil, until <= deadline { return (id, false) }
            state.sleeping = false
            return (id, true)
        }
        if wake { _ = eventfd_write(wakeFD, 1) }
        return id
    }

    /// Drops the timer `id` unless it has fired. Any thread.
    func cancelTimer(_ id: UInt64) {
        _ = state.withLock { $0.timers.cancel(id) }
    }

    /// Reactor thread: removes the actions of the timers that are due, to be run outside the lock.
    func takeDueTimers() -> [@Sendable () -> Void] {
        state.withLock { $0.timers.takeDue(at: .now) }
    }

    func awake() {
        state.withLock { $0.sleeping = false }
    }

    /// Moves the queued jobs into `spare` (empty), leaving the queue empty with `spare`'s old storage.
    func take(into spare: inout [Queued]) {
        state.withLock { swap(&$0.jobs, &spare) }
    }

    func stop() {
        state.withLock { $0.stopped = true }
        // The exited thread's id may be given to a new thread, which must not pass for the loop.
        loopThread.store(0, ordering: .relaxed)
    }
}
