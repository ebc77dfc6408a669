import Synchronization

/// What one watcher has seen so far; written by its task, read by the run while it waits for the stragglers.
final class WatcherProgress: Sendable {
    /// The `watch` reply arrived (notifications are counted from then on).
    let ready = Atomic<Bool>(false)
    /// The revision in the `watch` reply.
    let startRevision = Atomic<Int>(-1)
    /// `changed` notifications received.
    let received = Atomic<Int>(0)
    /// The revision of the last notification.
    let lastRevision = Atomic<Int>(-1)
    /// Notifications whose revision was not the previous one plus one.
    let gaps = Atomic<Int>(0)
    /// The watcher stopped: the server closed the connection (e.g. cut it off as a slow consumer), an error reply
    /// to `watch`, or a socket error.
    let stopped = Atomic<Bool>(false)
    let failure = Mutex<String?>(nil)

    func stop(_ reason: String) {
        failure.withLock { if $0 == nil { $0 = reason } }
        stopped.store(true, ordering: .releasing)
    }
}
