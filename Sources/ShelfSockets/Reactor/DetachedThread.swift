import Glibc

/// Starts detached POSIX threads for blocking work (the epoll loop, name lookups) so that it never runs on the
/// Swift cooperative thread pool.
enum DetachedThread {
    private final class Job: Sendable {
        let body: @Sendable () -> Void

        init(body: @escaping @Sendable () -> Void) {
            self.body = body
        }
    }

    /// Runs `body` on a new detached thread.
    /// - Throws: `SocketError.failed(call: "pthread_create", errno:)` when the thread cannot be created.
    static func start(_ body: @escaping @Sendable () -> Void) throws(SocketError) {
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))

        let job = Unmanaged.passRetained(Job(body: body))
        var thread = pthread_t()
        let rc = pthread_create(&thread, &attributes, { raw in
            guard let raw else { return nil }
            let job = Unmanaged<Job>.fromOpaque(raw).takeRetainedValue()
            job.body()
            return nil
        }, job.toOpaque())
        if rc != 0 {
            job.release()
            throw SocketError.failed(call: "pthread_create", errno: rc)
        }
    }
}
