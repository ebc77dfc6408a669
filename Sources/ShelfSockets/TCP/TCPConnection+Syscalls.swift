import Glibc

/// The result of one non-blocking syscall attempt.
enum IOAttempt<Value> {
    case done(Value)
    case wouldBlock
    case interrupted
}

extension TCPConnection {
    /// One `read(2)` of at most `maxBytes` bytes into a scratch buffer (`ReactorExecutor.withReadBuffer`); the
    /// result is copied so the returned array holds only the bytes read. `[]` means end of stream.
    static func readOnce(_ fd: Int32, _ maxBytes: Int, scratch: ReactorExecutor) throws(SocketError) -> IOAttempt<[UInt8]> {
        let (bytes, code) = scratch.withReadBuffer(capacity: maxBytes) { buffer in
            let count = Glibc.read(fd, buffer.baseAddress, maxBytes)
            guard count >= 0 else { return ([UInt8](), errno) }
            return (Array(UnsafeMutableBufferPointer(rebasing: buffer[0..<count])), Int32(0))
        }
        guard code != 0 else { return .done(bytes) }
        switch code {
        case EAGAIN, EWOULDBLOCK: return .wouldBlock
        case EINTR: return .interrupted
        case ECONNRESET: throw SocketError.peerClosed
        default: throw SocketError.failed(call: "read", errno: code)
        }
    }

    /// One `send(2)` with `MSG_NOSIGNAL`.
    /// - Returns: the number of bytes the kernel accepted.
    static func sendOnce(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) throws(SocketError) -> IOAttempt<Int> {
        let count = send(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
        if count >= 0 { return .done(count) }
        let code = errno
        switch code {
        case EAGAIN, EWOULDBLOCK: return .wouldBlock
        case EINTR: return .interrupted
        case EPIPE, ECONNRESET: throw SocketError.peerClosed
        default: throw SocketError.failed(call: "send", errno: code)
        }
    }
}
