import CEpoll
import Glibc
import Synchronization

/// The epoll reactor: one dedicated thread blocked in `epoll_wait` that resumes the tasks waiting for socket
/// readiness. Sockets are registered once, edge-triggered, for both directions.
///
/// - Important: the reactor thread is a plain POSIX thread, never a thread of the Swift cooperative pool; it only
///   looks up registrations and resumes continuations, so it never runs user code.
public final class Reactor: Sendable {
    /// The process-wide reactor, started on first use and kept for the life of the process. If it could not be
    /// started (for example `epoll_create1` failed with `EMFILE`), every listen/connect using it throws that error.
    public static let shared = Reactor(recordingFailure: ())

    /// Process-unique registration ids; 0 is the reactor's own eventfd.
    private static let lastID = Atomic<UInt64>(0)

    private let epollFD: Int32
    private let wakeFD: Int32
    private let startError: SocketError?
    /// Runs tasks on the reactor thread (an event loop): sessions prefer it, so readiness resumes them in place.
    public let executor: ReactorExecutor
    private let table = RegistrationTable()

    /// Starts a reactor with its own epoll instance and thread. The thread exits, and its descriptors are closed,
    /// when the reactor is released (sockets keep their reactor alive).
    /// - Throws: `SocketError.failed` for `epoll_create1`, `eventfd`, `epoll_ctl` or `pthread_create`.
    public convenience init() throws(SocketError) {
        self.init(recordingFailure: ())
        if let startError { throw startError }
    }

    private init(recordingFailure: Void) {
        switch Self.start(table: table) {
        case .success(let started):
            (epollFD, wakeFD, executor, startError) = (started.epoll, started.wake, started.executor, nil)
        case .failure(let error):
            // Nothing can be registered, so no task ever waits here for a socket.
            (epollFD, wakeFD, executor, startError) = (-1, -1, ReactorExecutor(wakeFD: -1), error)
        }
    }

    deinit {
        guard startError == nil else { return }
        table.requestStop()
        _ = eventfd_write(wakeFD, 1)
    }

    /// Registers `fd` (edge-triggered, both directions) under a new process-unique id.
    /// - Throws: the reactor's start error, or `SocketError.failed(call: "epoll_ctl", errno:)`.
    func register(fd: Int32) throws(SocketError) -> Registration {
        if let startError { throw startError }
        let registration = Registration(id: Self.lastID.add(1, ordering: .relaxed).newValue)
        try table.insert(registration)
        var event = epoll_event(events: Self.interest, data: epoll_data_t(u64: registration.id))
        guard epoll_ctl(epollFD, EPOLL_CTL_ADD, fd, &event) == 0 else {
            let error = SocketError.lastError("epoll_ctl")
            table.remove(id: registration.id)
            throw error
        }
        return registration
    }

    /// Removes the registration, then wakes its waiters with `SocketError.closed`.
    /// - Important: call while `fd` is still open (before `close(fd)`), so the fd number cannot have been reused.
    func deregister(_ registration: Registration, fd: Int32) {
        table.remove(id: registration.id)
        _ = epoll_ctl(epollFD, EPOLL_CTL_DEL, fd, nil)
        registration.close()
    }

    private static let interest = EPOLLIN.rawValue | EPOLLOUT.rawValue | EPOLLRDHUP.rawValue | EPOLLET.rawValue
}
