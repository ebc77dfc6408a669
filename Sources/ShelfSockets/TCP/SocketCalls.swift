import Glibc

/// Small wrappers around socket syscalls shared by the listener and connections.
enum SocketCalls {
    /// A new non-blocking, close-on-exec TCP socket.
    /// - Throws: `SocketError.failed(call: "socket", errno:)`.
    static func makeStreamSocket(family: Int32) throws(SocketError) -> Int32 {
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        let fd = socket(family, type, 0)
        guard fd >= 0 else { throw SocketError.lastError("socket") }
        return fd
    }

    /// Sets an `Int32` socket option.
    /// - Throws: `SocketError.failed(call: "setsockopt", errno:)`.
    static func setOption(_ fd: Int32, level: Int32, name: Int32, value: Int32) throws(SocketError) {
        var value = value
        guard setsockopt(fd, level, name, &value, socklen_t(MemoryLayout<Int32>.size)) == 0 else {
            throw SocketError.lastError("setsockopt")
        }
    }

    /// Disables Nagle's algorithm; failure is ignored (it only affects latency).
    static func setNoDelay(_ fd: Int32) {
        try? setOption(fd, level: Int32(IPPROTO_TCP), name: TCP_NODELAY, value: 1)
    }

    /// The pending socket error (`SO_ERROR`), which also clears it; 0 when there is none.
    /// - Throws: `SocketError.failed(call: "getsockopt", errno:)`.
    static func pendingError(_ fd: Int32) throws(SocketError) -> Int32 {
        var value: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &value, &length) == 0 else {
            throw SocketError.lastError("getsockopt")
        }
        return value
    }
}
