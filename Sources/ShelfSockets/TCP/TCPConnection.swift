import Glibc
import Synchronization

/// A connected, non-blocking TCP socket driven by a `Reactor`.
///
/// - Important: thread-safe. Each direction has one waiter at a time: a task in `read` or `write`, or a callback
///   left by `whenReadable` or `whenWritable` (a new one replaces the last). Two concurrent reads, or two
///   concurrent writes, on one connection are a programming error: if both have to suspend, the process stops with
///   a precondition failure.
public final class TCPConnection: Sendable {
    /// Process-unique, monotonically increasing id; the reactor registration is keyed by it.
    public let id: UInt64
    /// The remote address, e.g. `127.0.0.1:54321` or `[::1]:5`.
    public let peer: String

    let reactor: Reactor
    let handle: SocketHandle
    let registration: Registration
    /// Set after a read returned fewer bytes than asked: the socket was drained then, so the next read waits for
    /// readiness first instead of spending a system call on `EAGAIN` (edge-triggered epoll reports every arrival
    /// of data; an end of stream already reported is remembered in `Registration.hungUp`).
    private let drained = Atomic<Bool>(false)

    /// Takes ownership of a connected (or connecting) non-blocking `fd` and registers it with `reactor`.
    /// - Throws: the registration error; `fd` is closed in that case.
    init(adopting fd: Int32, peer: String, reactor: Reactor) throws(SocketError) {
        do {
            registration = try reactor.register(fd: fd)
        } catch {
            _ = Glibc.close(fd)
            throw error
        }
        id = registration.id
        self.peer = peer
        self.reactor = reactor
        handle = SocketHandle(fd: fd)
    }

    deinit {
        close()
    }

    /// The event loop of the reactor this socket is registered with: a task that serves the socket runs cheapest
    /// there (`Task(executorPreference: connection.executor)`), resumed in place when the socket is ready.
    public var executor: ReactorExecutor { reactor.executor }

    /// Reads what is available, up to `maxBytes` bytes, suspending while nothing is.
    /// - Parameter maxBytes: the most bytes to return; must be positive. Default 64 KiB.
    /// - Returns: 1...`maxBytes` bytes, or `[]` at end of stream (the peer shut down its write side).
    /// - Throws: `SocketError.peerClosed` on `ECONNRESET`; `.closed` if `close()` is or was called;
    ///   `.failed(call: "read", errno:)`; `CancellationError` if the task is cancelled while suspended.
    public nonisolated(nonsending) func read(maxBytes: Int = 65_536) async throws -> [UInt8] {
        precondition(maxBytes > 0, "maxBytes must be positive")
        if drained.exchange(false, ordering: .relaxed), !registration.hungUp.load(ordering: .acquiring) {
            try await registration.readable.wait()
        }
        while true {
            let outcome = try handle.withDescriptor { fd throws(SocketError) in try Self.readOnce(fd, maxBytes, scratch: reactor.executor) }
            switch outcome {
            case .done(let bytes):
                if !bytes.isEmpty, bytes.count < maxBytes { drained.store(true, ordering: .relaxed) }
                return bytes
            case .interrupted: continue
            case .wouldBlock: try await registration.readable.wait()
            }
        }
    }

    /// Reads what is available now, up to `maxBytes` bytes, without suspending (retrying EINTR): for a caller that
    /// waits for readability itself (`whenReadable`).
    /// - Returns: 1...`maxBytes` bytes; `[]` at end of stream; `nil` when nothing is available now.
    /// - Throws: as `read(maxBytes:)`, but never `CancellationError`.
    public func readNow(maxBytes: Int = 65_536) throws(SocketError) -> [UInt8]? {
        precondition(maxBytes > 0, "maxBytes must be positive")
        while true {
            let outcome = try handle.withDescriptor { fd throws(SocketError) in try Self.readOnce(fd, maxBytes, scratch: reactor.executor) }
            switch outcome {
            case .done(let bytes): return bytes
            case .interrupted: continue
            case .wouldBlock: return nil
            }
        }
    }

    /// Calls `action` once, on the reactor thread, when the socket has something to read after a `readNow` that
    /// found nothing (or when the connection closes); no task waits meanwhile.
    /// - Returns: false, keeping nothing, when it may have something already (or is closed, or the peer's end of
    ///   stream was reported): call `readNow` again.
    public func whenReadable(_ action: @escaping @Sendable () -> Void) -> Bool {
        if registration.hungUp.load(ordering: .acquiring) { return false }
        return registration.readable.whenReady(action)
    }

    /// Writes all of `bytes`, suspending while the socket's send buffer is full. Uses `send` with `MSG_NOSIGNAL`,
    /// so a closed peer never raises `SIGPIPE`.
    /// - Throws: `SocketError.peerClosed` on `EPIPE`/`ECONNRESET`; `.closed` if `close()` is or was called;
    ///   `.failed(call: "send", errno:)`; `CancellationError` if the task is cancelled while suspended. After an
    ///   error some prefix of `bytes` may have been sent; close the connection. An empty array returns at once.
    public func write(_ bytes: [UInt8]) async throws {
        try await write(bytes[...])
    }

    /// Writes all of `bytes`, part of an array (the rest of a large reply the socket did not take at once), without
    /// copying it out first; otherwise as the `[UInt8]` overload.
    /// - Throws: as the `[UInt8]` overload.
    public func write(_ bytes: ArraySlice<UInt8>) async throws {
        var offset = 0
        while offset < bytes.count {
            let outcome = try bytes.withUnsafeBytes { raw throws(SocketError) in
                let pending = UnsafeRawBufferPointer(rebasing: raw[offset...])
                return try handle.withDescriptor { fd throws(SocketError) in try Self.sendOnce(fd, pending) }
            }
            switch outcome {
            case .done(let sent): offset += sent
            case .interrupted: continue
            case .wouldBlock: try await registration.writable.wait()
            }
        }
    }

    /// Sends as much of `bytes` as the socket takes right now, without suspending (retrying EINTR).
    /// - Returns: how many bytes were sent (0 when the send buffer is full).
    /// - Throws: as `write(_:)`, but never `CancellationError`.
    public func writeNow(_ bytes: ArraySlice<UInt8>) throws -> Int {
        var offset = 0
        while offset < bytes.count {
            let outcome = try bytes.withUnsafeBytes { raw throws(SocketError) in
                let pending = UnsafeRawBufferPointer(rebasing: raw[offset...])
                return try handle.withDescriptor { fd throws(SocketError) in try Self.sendOnce(fd, pending) }
            }
            switch outcome {
            case .done(let sent): offset += sent
            case .interrupted: continue
            case .wouldBlock: return offset
            }
        }
        return offset
    }

    /// Calls `action` once, on the reactor thread, when the socket can take more bytes after a `writeNow` that
    /// took fewer than it was given (or when the connection closes): what a single-writer session waits with
    /// instead of a task.
    /// - Returns: false, keeping nothing, when it can take more already (or is closed): call `writeNow` again.
    public func whenWritable(_ action: @escaping @Sendable () -> Void) -> Bool {
        registration.writable.whenReady(action)
    }

    /// Shuts down the sending side (`shutdown(SHUT_WR)`): the peer reads end of stream. Idempotent; errors and
    /// calls after `close()` are ignored. Reading still works.
    public func shutdownWrite() {
        try? handle.withDescriptor { fd throws(SocketError) in _ = shutdown(fd, Int32(SHUT_WR)) }
    }

    /// Bytes written to the socket that the peer has not acknowledged yet (`ioctl(SIOCOUTQ)`, Linux tcp(7)): 0 once
    /// the peer's kernel holds everything sent, so closing cannot lose any of it. `nil` after `close()` or when the
    /// call fails.
    public var unacknowledgedBytes: Int? {
        try? handle.withDescriptor { fd throws(SocketError) -> Int? in
            var queued: Int32 = 0
            // SIOCOUTQ has the value of TIOCOUTQ (linux/sockios.h), which is what Glibc exports.
            return ioctl(fd, UInt(TIOCOUTQ), &queued) == 0 ? Int(queued) : nil
        } ?? nil
    }

    /// Bytes the peer sent that have arrived and not been read yet (`FIONREAD`); `nil` when the socket is closed or
    /// the kernel does not say. Any thread; takes nothing from the socket.
    public var unreadBytes: Int? {
        try? handle.withDescriptor { fd throws(SocketError) -> Int? in
            var waiting: Int32 = 0
            return ioctl(fd, UInt(FIONREAD), &waiting) == 0 ? Int(waiting) : nil
        } ?? nil
    }

    /// Closes the connection. Idempotent. Deregisters from epoll before the fd is closed, and wakes a pending
    /// `read` or `write` with `SocketError.closed`. Safe to call from any task or thread.
    public func close() {
        handle.close { fd in reactor.deregister(registration, fd: fd) }
    }
}
