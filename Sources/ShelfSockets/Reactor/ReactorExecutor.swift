import CEpoll
import Glibc
import Synchronization

/// Runs Swift tasks on the reactor thread between two epoll waits, as an event loop does (SwiftNIO's event loops
/// do the same): a task that prefers this executor (`Task(executorPreference:)`, SE-0417) and waits for a socket
/// is resumed on the thread that saw the readiness, with no wake-up of a pool thread and no context switch.
///
/// Its `serial` executor runs an actor's jobs on the same thread (SE-0392), so a task already running here can
/// call that actor synchronously (`ReactorSerialExecutor.isIsolatingCurrentContext()`).
///
/// Jobs enqueued from the reactor thread itself cost one lock; from any other thread, one more `eventfd` write
/// when the reactor sleeps in `epoll_wait`. What runs here must never block: it would stall every socket.
///
/// - Important: once its reactor is released and its thread has exited, jobs enqueued here never run; the shared
///   reactor lives as long as the process.
public final class ReactorExecutor: TaskExecutor, Sendable {
    /// The loop as a `SerialExecutor`: an actor whose `unownedExecutor` is this runs on the reactor thread.
    public let serial: ReactorSerialExecutor
    private let queue: ReactorJobQueue
    /// Work to run when the current round's jobs are done (`afterRound`); touched on the loop thread only.
    private let roundEnd = Mutex<[any RoundEndWork]>([])
    /// The loop thread's buffer for socket reads (`withReadBuffer`), `readBufferBytes` long; only that thread
    /// touches it, one read at a time.
    private nonisolated(unsafe) let readBuffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: readBufferBytes)

    /// - Parameter wakeFD: the reactor's eventfd, registered with its epoll instance.
    init(wakeFD: Int32) {
        queue = ReactorJobQueue(wakeFD: wakeFD)
        serial = ReactorSerialExecutor(queue: queue)
    }

    deinit {
        readBuffer.deallocate()
    }

    /// The size of the loop thread's read buffer: 64 KiB, `TCPConnection.read`'s largest usual read.
    static let readBufferBytes = 65_536

    /// Runs `body` with a buffer of at least `capacity` bytes for one socket read: on the loop thread its own
    /// buffer, reused for every read (a fresh 64 KiB block per read cost a `malloc`, and its `free` made glibc
    /// consolidate its free lists); elsewhere, or when larger, a temporary one. `body` must not keep the buffer.
    func withReadBuffer<Result>(capacity: Int, _ body: (UnsafeMutableBufferPointer<UInt8>) -> Result) -> Result {
        if capacity <= Self.readBufferBytes, queue.isLoopThread {
            return body(UnsafeMutableBufferPointer(rebasing: readBuffer[0..<capacity]))
        }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity, body)
    }

    /// Queues `job` to run on the reactor thread in a later round (`TaskExecutor`); from another thread, wakes the
    /// reactor out of `epoll_wait` with one `eventfd` write when it sleeps. Any thread.
    public func enqueue(_ job: consuming ExecutorJob) {
        queue.push(UnownedJob(job), isolated: false)
    }

    /// Reactor thread, before `epoll_wait`: its timeout in milliseconds — 0 when jobs wait, else -1 (no timeout),
    /// and from then on an enqueue wakes the thread.
    func prepareToWait() -> Int32 {
        queue.prepareToWait()
    }

    /// Reactor thread, after `epoll_wait` returned: enqueues from this thread need no wake-up.
    func awake() {
        queue.awake()
    }

    /// Runs `body` on the loop thread once the jobs of the current round have run, before the next epoll poll:
    /// lets the tasks of one round batch their socket writes (each wakes the peer once, not once per reply).
    /// - Returns: false, without keeping `body`, when not called on the loop thread (run it yourself).
    public func afterRound(_ body: @escaping @Sendable () -> Void) -> Bool {
        afterRound(RoundEnd(work: body))
    }

    /// `afterRound(_:)` for work given as a value: one of at most three words (say, an object and an array) is
    /// kept without an allocation, where a closure capturing the same two costs one.
    /// - Returns: false, without keeping `work`, when not called on the loop thread (run it yourself).
    public func afterRound(_ work: some RoundEndWork) -> Bool {
        guard queue.isLoopThread else { return false }
        roundEnd.withLock { $0.append(work) }
        return true
    }

    /// Suspends the calling task until a later round of the loop, after the next epoll poll, so that other
    /// connections' work runs first; on any other thread it returns at once. (What `Task.yield()` also does for a
    /// task that prefers this executor, but said here, where the loop's rounds are defined.)
    public nonisolated(nonsending) func nextRound() async {
        await withCheckedContinuation { continuation in
            // Resumed at the end of this round, the task is queued here for the next one.
            if !afterRound({ continuation.resume() }) { continuation.resume() }
        }
    }

    /// Runs `action` on the loop thread once `delay` has passed (or at the loop's first wake after it), unless the
    /// returned timer is cancelled first. The loop's own timer, not a Dispatch one: nothing of it runs on the
    /// global pool, whose monitor aborts the process when it cannot open a file (out of descriptors).
    /// - Parameter delay: how long from now, rounded up to whole milliseconds.
    public func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> ReactorTimer {
        ReactorTimer(queue: queue, id: queue.schedule(at: .now + delay, action))
    }

    /// Suspends the calling task until `deadline`, on the loop's timers (`schedule(after:_:)`); a task that prefers
    /// this executor (or an actor on `serial`) is resumed on the loop thread.
    /// - Throws: `CancellationError` as soon as the task is cancelled.
    /// - Parameter isolation: the caller's actor, where the task resumes (a closure without it would hop to the
    ///   global pool on the way).
    public func sleep(
        until deadline: ContinuousClock.Instant, isolation: isolated (any Actor)? = #isolation
    ) async throws(CancellationError) {
        let wake = SleepWake()
        let id = queue.schedule(at: deadline) { wake.finish(fired: true) }
        let fired = await withTaskCancellationHandler(
            operation: { await withCheckedContinuation(isolation: isolation) { wake.wait($0) } },
            onCancel: { [queue] in
                queue.cancelTimer(id)
                wake.finish(fired: false)
            },
            isolation: isolation)
        if !fired { throw CancellationError() }
    }

    /// `sleep(until:)` for `delay` from now.
    public func sleep(for delay: Duration, isolation: isolated (any Actor)? = #isolation) async throws(CancellationError) {
        try await sleep(until: .now + delay, isolation: isolation)
    }

    /// Reactor thread, after a wait: runs the timers that are due (the tasks they resume run in this round).
    func fireDueTimers() {
        for action in queue.takeDueTimers() { action() }
    }

    /// Reactor thread, when its loop starts.
    func loopStarted() {
        queue.loopStarted()
    }

    /// Reactor thread: runs the jobs queued so far (jobs they enqueue run in the next round, after the next
    /// epoll poll, so sockets are never starved), then the round's `afterRound` work. `spare` is reused.
    func runQueued(using spare: inout [ReactorJobQueue.Queued]) {
        queue.take(into: &spare)
        let executor = asUnownedTaskExecutor()
        let serialExecutor = serial.asUnownedSerialExecutor()
        for queued in spare {
            if queued.isolated {
                // With the loop as its task executor too: a task that prefers the loop (a session's reader) then
                // switches between two actors of this executor in place.
                queued.job.runSynchronously(isolatedTo: serialExecutor, taskExecutor: executor)
            } else {
                queued.job.runSynchronously(on: executor)
            }
        }
        spare.removeAll(keepingCapacity: true)
        // Taken out whole and handed back emptied, so the array's storage is reused round after round (copying it
        // out and emptying the original allocated a new buffer every round). Repeated while round-end work asks for
        // more: the loop would otherwise sleep in epoll_wait with that work waiting for some later event.
        while true {
            var endings = roundEnd.withLock { roundEnd in
                var taken: [any RoundEndWork] = []
                swap(&taken, &roundEnd)
                return taken
            }
            if endings.isEmpty { return }
            for ending in endings { ending.roundEnded() }
            endings.removeAll(keepingCapacity: true)
            roundEnd.withLock { roundEnd in
                if roundEnd.isEmpty { swap(&roundEnd, &endings) }
            }
        }
    }

    /// One `afterRound` closure. Held in a struct because an array of bare closures stores them at the most
    /// general abstraction: each append allocated a thunk to convert the closure.
    private struct RoundEnd: RoundEndWork {
        let work: @Sendable () -> Void

        func roundEnded() {
            work()
        }
    }

    /// Reactor thread, when it exits: later enqueues no longer touch the eventfd.
    func stop() {
        queue.stop()
    }
}

/// A timer on the loop (`ReactorExecutor.schedule(after:_:)`).
public struct ReactorTimer: Sendable {
    fileprivate let queue: ReactorJobQueue
    fileprivate let id: UInt64

    /// Drops the timer unless it has fired already; its action then never runs. Any thread; idempotent.
    public func cancel() {
        queue.cancelTimer(id)
    }
}

/// The meeting point of a sleeping task and its timer (or its cancellation): whichever comes first decides.
private final class SleepWake: Sendable {
    private enum State {
        case idle
        case waiting(CheckedContinuation<Bool, Never>)
        case finished(fired: Bool)
    }

    private let state = Mutex(State.idle)

    func wait(_ continuation: CheckedContinuation<Bool, Never>) {
        let finished = state.withLock { state -> Bool? in
            if case .finished(let fired) = state { return fired }
            state = .waiting(continuation)
            return nil
        }
        if let finished { continuation.resume(returning: finished) }
    }

    func finish(fired: Bool) {
        let waiting = state.withLock { state -> CheckedContinuation<Bool, Never>? in
            switch state {
            case .idle:
                state = .finished(fired: fired)
                return nil
            case .waiting(let continuation):
                state = .finished(fired: fired)
                return continuation
            case .finished:
                return nil
            }
        }
        waiting?.resume(returning: fired)
    }
}
