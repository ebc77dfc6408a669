import Glibc

/// Starts detached POSIX threads for blocking work (the epoll loop, name lookups) so that it never runs on the
/// Swift cooperative thread pool.
enum DetachedThread {
    private final class Job: Sendable {
        let name: String
        let body: @Sendable () -> Void

        init(name: String, body: @escaping @Sendable () -> Void) {
            self.name = name
            self.body = body
        }

        /// On the new thread: names it, then runs the body.
        func run() {
            DetachedThread.nameCurrentThread(name)
            body()
        }
    }

    /// Runs `body` on a new detached thread called `name` (what `top -H`, `ps -L` and `perf` show; Linux keeps the
    /// first 15 bytes). Without a name a thread would take its creator's, often a Dispatch worker's.
    /// - Throws: `SocketError.failed(call: "pthread_create", errno:)` when the thread cannot be created.
    static func start(named name: String, _ body: @escaping @Sendable () -> Void) throws(SocketError) {
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))

        let job = Unmanaged.passRetained(Job(name: String(decoding: name.utf8.prefix(15), as: UTF8.self), body: body))
        var thread = pthread_t()
        let rc = pthread_create(&thread, &attributes, { raw in
            guard let raw else { return nil }
            let job = Unmanaged<Job>.fromOpaque(raw).takeRetainedValue()
            job.run()
            return nil
        }, job.toOpaque())
        if rc != 0 {
            job.release()
            throw SocketError.failed(call: "pthread_create", errno: rc)
        }
    }

    /// Names the calling thread, through `/proc/thread-self/comm` (what `pthread_setname_np` writes; the Glibc
    /// module does not declare it). Best effort: a thread without its name works the same.
    fileprivate static func nameCurrentThread(_ name: String) {
        // procfs opens and writes do not sleep, so there is no EINTR to retry.
        let fd = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = name.utf8CString.withUnsafeBufferPointer { bytes in write(fd, bytes.baseAddress, bytes.count - 1) }
        _ = close(fd)
    }
}
