import CEpoll
import Glibc

/// A listening TCP socket whose `accept()` suspends instead of blocking a thread.
///
/// - Important: thread-safe; `close()` may be called from any task. One `accept()` at a time.
public final class TCPListener: Sendable {
    /// The address actually bound, with the real port when port 0 was requested.
    public let localAddress: HostPort

    let reactor: Reactor
    let handle: SocketHandle
    let registration: Registration

    private init(fd: Int32, localAddress: HostPort, reactor: Reactor) throws(SocketError) {
        do {
            registration = try reactor.register(fd: fd)
        } catch {
            _ = Glibc.close(fd)
            throw error
        }
        self.localAddress = localAddress
        self.reactor = reactor
        handle = SocketHandle(fd: fd)
    }

    deinit {
        close()
    }

    /// Binds and listens, with `SO_REUSEADDR` on. An IPv6 host gets an IPv6 socket (dual-stack per the system
    /// default). A name (e.g. `localhost`) is resolved on the calling thread and the first address is used.
    /// - Parameters:
    ///   - address: where to listen; port 0 picks a free port (see `localAddress`).
    ///   - backlog: the kernel's pending-connection queue length (capped by `net.core.somaxconn`).
    ///   - reactor: the reactor that drives `accept()` and the accepted connections.
    /// - Throws: `SocketError.invalidAddress`/`.addressResolution`, or `.failed(call:errno:)` for `socket`,
    ///   `setsockopt`, `bind` (e.g. `EADDRINUSE`), `listen`, `getsockname` or `epoll_ctl`.
    public static func listen(
        on address: HostPort,
        backlog: Int32 = 511,
        reactor: Reactor = .shared
    ) throws(SocketError) -> TCPListener {
        guard let target = try AddressResolver.resolveBlocking(address, passive: true).first else {
            throw SocketError.invalidAddress(address.description)
        }
        let fd = try SocketCalls.makeStreamSocket(family: target.family)
        let bound: SocketAddress
        do throws(SocketError) {
            try SocketCalls.setOption(fd, level: SOL_SOCKET, name: SO_REUSEADDR, value: 1)
            guard target.withSockAddr({ bind(fd, $0, $1) }) == 0 else { throw SocketError.lastError("bind") }
            guard Glibc.listen(fd, backlog) == 0 else { throw SocketError.lastError("listen") }
            bound = try SocketAddress.query(fd, call: "getsockname", getsockname)
        } catch {
            _ = Glibc.close(fd)
            throw error
        }
        return try TCPListener(fd: fd, localAddress: bound.hostPort, reactor: reactor)
    }

    /// Suspends until a connection arrives and returns it (non-blocking, close-on-exec, `TCP_NODELAY`).
    ///
    /// `EINTR` and `ECONNABORTED` (and the network errors Linux reports through `accept`) are retried here.
    /// - Throws: `SocketError.failed(call: "accept", errno:)` for resource exhaustion (`EMFILE`, `ENFILE`,
    ///   `ENOBUFS`, `ENOMEM`) and other errors: back off before calling again, this method does not spin;
    ///   `.closed` if `close()` is or was called; `CancellationError` if the task is cancelled while suspended.
    public func accept() async throws -> TCPConnection {
        while true {
            let outcome = try handle.withDescriptor { fd throws(SocketError) in try Self.acceptOnce(fd) }
            switch outcome {
            case .done(let (fd, peer)):
                SocketCalls.setNoDelay(fd)
                return try TCPConnection(adopting: fd, peer: peer, reactor: reactor)
            case .interrupted: continue
            case .wouldBlock: try await registration.readable.wait()
            }
        }
    }

    /// Accepts a connection already waiting, without suspending: `nil` when none is (or the listener is closed).
    /// `EINTR` and the pending network errors are retried as in `accept()`.
    /// - Throws: `SocketError.failed(call: "accept", errno:)`, e.g. `EMFILE`.
    public func acceptNow() throws(SocketError) -> TCPConnection? {
        while true {
            let outcome: IOAttempt<(Int32, String)>
            do {
                outcome = try handle.withDescriptor { fd throws(SocketError) in try Self.acceptOnce(fd) }
            } catch SocketError.closed {
                return nil
            }
            switch outcome {
            case .done(let (fd, peer)):
                SocketCalls.setNoDelay(fd)
                return try TCPConnection(adopting: fd, peer: peer, reactor: reactor)
            case .interrupted: continue
            case .wouldBlock: return nil
            }
        }
    }

    /// Suspends until a connection may be waiting (the listening socket became readable since it last was looked
    /// at), without accepting it: for a caller that cannot accept now (out of descriptors, `acceptNow()` found none)
    /// and must not poll.
    /// - Throws: `.closed` if `close()` is or was called; `CancellationError` if the task is cancelled.
    public func waitForConnection() async throws {
        try await registration.readable.wait()
    }

    /// Stops listening. Idempotent; wakes a pending `accept()` with `SocketError.closed`. Connections already
    /// accepted stay open.
    public func close() {
        handle.close { fd in reactor.deregister(registration, fd: fd) }
    }

    /// One `accept4(2)`: the new fd and the peer's `HOST:PORT`.
    private static func acceptOnce(_ fd: Int32) throws(SocketError) -> IOAttempt<(Int32, String)> {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let flags = Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        let client = withUnsafeMutablePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { accept4(fd, $0, &length, flags) }
        }
        if client >= 0 {
            let peer = withUnsafePointer(to: &storage) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    SocketAddress(copying: $0, length: length)?.description ?? "unknown"
                }
            }
            return .done((client, peer))
        }
        let code = errno
        switch code {
        case EAGAIN, EWOULDBLOCK:
            return .wouldBlock
        case EINTR, ECONNABORTED, EPROTO, ENETDOWN, ENOPROTOOPT, EHOSTDOWN, ENONET, EHOSTUNREACH, ENETUNREACH:
            // accept(2), Linux notes: pending network errors of the new socket; retry like EAGAIN.
            return .interrupted
        default:
            throw SocketError.failed(call: "accept", errno: code)
        }
    }
}
