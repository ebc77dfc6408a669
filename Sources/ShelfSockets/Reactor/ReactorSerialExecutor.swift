/// The event loop as a `SerialExecutor` (SE-0392): an actor that returns it as its `unownedExecutor` runs every
/// job on the reactor thread, one at a time, between epoll waits, so tasks that already run there (sessions) can
/// call it without a hop.
public final class ReactorSerialExecutor: SerialExecutor, Sendable {
    private let queue: ReactorJobQueue

    init(queue: ReactorJobQueue) {
        self.queue = queue
    }

    /// Queues an actor's job for the reactor thread. Any thread.
    public func enqueue(_ job: consuming ExecutorJob) {
        queue.push(UnownedJob(job), isolated: true)
    }

    /// True on the reactor thread: whatever runs there runs one job at a time, so it is isolated to this
    /// executor (SE-0471); false anywhere else.
    public func isIsolatingCurrentContext() -> Bool? {
        queue.isLoopThread
    }
}
