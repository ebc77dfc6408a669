import CEpoll
import Glibc
import Synchronization

/// Runs Swift tasks on the reactor thread between two epoll waits, as an event loop does (SwiftNIO's event loops
/// do the same): a task that prefers this executor (`Task(executorPreference:)`, SE-0417) and waits for a socket
/// is resumed on the thread that saw the readiness, with no wake-up of a pool thread and no context switch.
///
/// Jobs enqueued from the reactor thread itself cost one lock; from any other thread, one more `eventfd` write
/// when the reactor sleeps in `epoll_wait`. What runs here must never block: it would stall every socket.
///
/// - Important: once its reactor is released and its thread has exited, jobs enqueued here never run; the shared
///   reactor lives as long as the process.
public final class ReactorExecutor: TaskExecutor, Sendable {
    private struct State {
        var jobs: [UnownedJob] = []
        /// The reactor thread is in (or about to enter) an epoll wait without timeout: an enqueue must wake it.
        var sleeping = false
        var stopped = false
    }

    private let state = Mutex(State())
    private let wakeFD: Int32
    /// Work to run when the current round's jobs are done (`afterRound`); touched on the loop thread only.
    private let roundEnd = Mutex<[@Sendable () -> Void]>([])
    /// The loop thread (`pthread_self()`), once it runs.
    private let loopThread = Atomic<UInt>(0)

    /// - Parameter wakeFD: the reactor's eventfd, registered with its epoll instance.
    init(wakeFD: Int32) {
        self.wakeFD = wakeFD
    }

    /// Queues `job` to run on the reactor thread in a later round (`TaskExecutor`); from another thread, wakes the
    /// reactor out of `epoll_wait` with one `eventfd` write when it sleeps. Any thread.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let wake = state.withLock { state -> Bool in
            state.jobs.append(job)
            defer { state.sleeping = false }
            return state.sleeping && !state.stopped
        }
        if wake { _ = eventfd_write(wakeFD, 1) }
    }

    /// Reactor thread, before `epoll_wait`: its timeout in milliseconds — 0 when jobs wait, else -1 (no timeout),
    /// and from then on an enqueue wakes the thread.
    func prepareToWait() -> Int32 {
        state.withLock { state in
            if !state.jobs.isEmpty { return 0 }
            state.sleeping = true
            return -1
        }
    }

    /// Reactor thread, after `epoll_wait` returned: enqueues from this thread need no wake-up.
    func awake() {
        state.withLock { $0.sleeping = false }
    }

    /// Runs `body` on the loop thread once the jobs of the current round have run, before the next epoll poll:
    /// lets the tasks of one round batch their socket writes (each wakes the peer once, not once per reply).
    /// - Returns: false, without keeping `body`, when not called on the loop thread (run it yourself).
    public func afterRound(_ body: @escaping @Sendable () -> Void) -> Bool {
        guard loopThread.load(ordering: .relaxed) == UInt(pthread_self()) else { return false }
        roundEnd.withLock { $0.append(body) }
        return true
    }

    /// Reactor thread, when its loop starts.
    func loopStarted() {
        loopThread.store(UInt(pthread_self()), ordering: .relaxed)
    }

    /// Reactor thread: runs the jobs queued so far (jobs they enqueue run in the next round, after the next
    /// epoll poll, so sockets are never starved), then the round's `afterRound` work. `spare` is reused.
    func runQueued(using spare: inout [UnownedJob]) {
        state.withLock { swap(&$0.jobs, &spare) }
        let executor = asUnownedTaskExecutor()
        for job in spare { job.runSynchronously(on: executor) }
        spare.removeAll(keepingCapacity: true)
        let endings = roundEnd.withLock { roundEnd in
            defer { roundEnd.removeAll(keepingCapacity: true) }
            return roundEnd
        }
        for ending in endings { ending() }
    }

    /// Reactor thread, when it exits: later enqueues no longer touch the eventfd.
    func stop() {
        state.withLock { $0.stopped = true }
    }
}
