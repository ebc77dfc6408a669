import CEpoll
import Glibc

extension Reactor {
    /// Creates the epoll instance and the wake eventfd and starts the reactor thread.
    static func start(table: RegistrationTable) -> Result<(epoll: Int32, wake: Int32, executor: ReactorExecutor), SocketError> {
        let epollFD = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epollFD >= 0 else { return .failure(.lastError("epoll_create1")) }
        let wakeFD = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        guard wakeFD >= 0 else {
            let error = SocketError.lastError("eventfd")
            _ = close(epollFD)
            return .failure(error)
        }
        var event = epoll_event(events: EPOLLIN.rawValue | EPOLLET.rawValue, data: epoll_data_t(u64: 0))
        guard epoll_ctl(epollFD, EPOLL_CTL_ADD, wakeFD, &event) == 0 else {
            let error = SocketError.lastError("epoll_ctl")
            _ = close(wakeFD)
            _ = close(epollFD)
            return .failure(error)
        }
        let executor = ReactorExecutor(wakeFD: wakeFD)
        do throws(SocketError) {
            try DetachedThread.start(named: "shelf-reactor") { @Sendable in
                runLoop(epollFD: epollFD, wakeFD: wakeFD, table: table, executor: executor)
            }
        } catch {
            _ = close(wakeFD)
            _ = close(epollFD)
            return .failure(error)
        }
        return .success((epollFD, wakeFD, executor))
    }

    /// The reactor thread's body: waits (EINTR retried), wakes registrations, fires the timers that are due,
    /// runs the tasks queued on its executor, and again, until stopped. It waits no longer than until the earliest
    /// timer, and without timeout only when no task is queued and no timer is set.
    private static func runLoop(epollFD: Int32, wakeFD: Int32, table: RegistrationTable, executor: ReactorExecutor) {
        let capacity = 256
        let events = UnsafeMutableBufferPointer<epoll_event>.allocate(capacity: capacity)
        defer { events.deallocate() }
        var batch: [(Registration, UInt32)] = []
        batch.reserveCapacity(capacity)
        var jobs: [ReactorJobQueue.Queued] = []
        executor.loopStarted()
        defer { executor.stop() }
        while true {
            let count = epoll_wait(epollFD, events.baseAddress, Int32(capacity), executor.prepareToWait())
            executor.awake()
            if count < 0 {
                let code = errno
                if code == EINTR { continue }
                // Only EBADF/EFAULT/EINVAL remain: a bug. Fail everything rather than leave waiters hanging, and
                // leave the descriptors open: the reactor's deinit still writes to the eventfd.
                table.fail(.failed(call: "epoll_wait", errno: code))
                return
            }
            let ready = UnsafeMutableBufferPointer(rebasing: events[0..<Int(count)])
            if ready.contains(where: { $0.data.u64 == 0 }) {
                var drained: eventfd_t = 0
                _ = eventfd_read(wakeFD, &drained)
            }
            batch.removeAll(keepingCapacity: true)
            let stopping = table.collect(ready, into: &batch)
            for (registration, mask) in batch { registration.deliver(events: mask) }
            if stopping { break }
            executor.fireDueTimers()
            executor.runQueued(using: &jobs)
        }
        _ = close(wakeFD)
        _ = close(epollFD)
    }
}
