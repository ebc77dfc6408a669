import CEpoll
import Synchronization

/// One socket registered with a `Reactor`, keyed by a process-unique id (never by the fd number, which the kernel
/// reuses as soon as it is closed).
final class Registration: Sendable {
    /// The epoll `data.u64` key; 0 is reserved for the reactor's own eventfd.
    let id: UInt64
    let readable = ReadinessGate(direction: "read")
    let writable = ReadinessGate(direction: "write")
    /// Set for good once epoll reported the peer's end of stream or an error: the event that says so may be consumed
    /// by a read that still returns data, so readers must not count on another edge after that.
    let hungUp = Atomic<Bool>(false)

    init(id: UInt64) {
        self.id = id
    }

    /// Reactor thread: wakes the directions the epoll event mask reports. Errors and hang-ups wake both so the
    /// retried syscall reports them.
    func deliver(events: UInt32) {
        let failure = EPOLLERR.rawValue | EPOLLHUP.rawValue
        if events & (EPOLLRDHUP.rawValue | failure) != 0 { hungUp.store(true, ordering: .releasing) }
        if events & (EPOLLIN.rawValue | EPOLLRDHUP.rawValue | failure) != 0 { readable.signal() }
        if events & (EPOLLOUT.rawValue | failure) != 0 { writable.signal() }
    }

    /// Wakes both directions' waiters with `SocketError.closed`, now and for every later wait.
    func close() {
        readable.close()
        writable.close()
    }
}
