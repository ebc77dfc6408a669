import CEpoll
import Glibc
import Synchronization

/// The jobs waiting for the reactor thread, from its task executor and its serial executor alike, in the order
/// they were enqueued; wakes the thread out of `epoll_wait` when it sleeps.
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
        var stopped = false
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
            return -1
        }
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
