import Glibc

extension TCPConnection {
    /// Opens a TCP connection without blocking a thread: a non-blocking `connect`, then a wait for writability
    /// and a check of `SO_ERROR`.
    ///
    /// Numeric hosts are used directly; names are resolved with `getaddrinfo` on a dedicated thread (never the
    /// cooperative pool), and each resolved address is tried in order until one connects.
    /// - Parameters:
    ///   - address: where to connect, e.g. `127.0.0.1:7453`, `[::1]:7453` or `localhost:7453`.
    ///   - reactor: the reactor that drives the connection.
    /// - Returns: a connected socket with `TCP_NODELAY` set.
    /// - Throws: `SocketError.addressResolution`; the last address's `SocketError.failed(call: "connect", errno:)`
    ///   (e.g. `ECONNREFUSED`) or `.failed(call: "socket"|"epoll_ctl", ...)`; `CancellationError` if the task is
    ///   cancelled while waiting (the half-open socket is closed). A name lookup already running is not
    ///   interrupted; cancellation is noticed when it returns.
    public static func connect(to address: HostPort, reactor: Reactor = .shared) async throws -> TCPConnection {
        let candidates = try await AddressResolver.resolve(address)
        var lastError = SocketError.addressResolution(host: address.host, message: "no usable address")
        for candidate in candidates {
            try Task.checkCancellation()
            do {
                return try await connect(to: candidate, reactor: reactor)
            } catch let error as SocketError {
                lastError = error
            }
        }
        throw lastError
    }

    /// Connects to one concrete address.
    private static func connect(to target: SocketAddress, reactor: Reactor) async throws -> TCPConnection {
        let fd = try SocketCalls.makeStreamSocket(family: target.family)
        SocketCalls.setNoDelay(fd)
        let rc = target.withSockAddr { Glibc.connect(fd, $0, $1) }
        // EINTR on a non-blocking connect: the attempt continues in the background, exactly like EINPROGRESS.
        let code = rc == 0 ? 0 : errno
        guard code == 0 || code == EINPROGRESS || code == EINTR else {
            _ = Glibc.close(fd)
            throw SocketError.failed(call: "connect", errno: code)
        }
        let connection = try TCPConnection(adopting: fd, peer: target.description, reactor: reactor)
        guard code != 0 else { return connection }
        do {
            try await connection.awaitConnected()
        } catch {
            connection.close()
            throw error
        }
        return connection
    }

    /// Waits until an in-progress connect finishes.
    /// - Throws: `SocketError.failed(call: "connect", errno:)` with the `SO_ERROR` value on failure.
    private func awaitConnected() async throws {
        while true {
            try await registration.writable.wait()
            let connected = try handle.withDescriptor { fd throws(SocketError) -> Bool in
                let failure = try SocketCalls.pendingError(fd)
                guard failure == 0 else { throw SocketError.failed(call: "connect", errno: failure) }
                // A wakeup without an error is only final once the socket has a peer; otherwise keep waiting.
                do throws(SocketError) {
                    _ = try SocketAddress.query(fd, call: "getpeername", getpeername)
                    return true
                } catch {
                    guard error == .failed(call: "getpeername", errno: ENOTCONN) else { throw error }
                    return false
                }
            }
            if connected { return }
        }
    }
}
