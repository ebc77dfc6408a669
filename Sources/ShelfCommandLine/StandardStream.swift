import Glibc

/// Standard output or standard error, written with `write(2)`: unbuffered, partial writes and `EINTR` retried, and
/// a non-blocking descriptor waited on (`poll`) when full. When nobody reads any more (`EPIPE`, as in
/// `shelf list | head -1` or `shelfd 2>&1 | head`) or on another error, the rest of the text is dropped:
/// Foundation's `FileHandle.write(_:)` traps instead, and a log line must never end the server.
public enum StandardStream: Sendable {
    /// File descriptor 1.
    case output
    /// File descriptor 2.
    case error

    /// Writes `text` (as UTF-8), all of it unless the stream fails.
    /// - Returns: false when the reader has gone away (`EPIPE`): a command should stop, as under SIGPIPE.
    @discardableResult
    public func write(_ text: String) -> Bool {
        let fd: Int32 = self == .output ? STDOUT_FILENO : STDERR_FILENO
        var bytes = Array(text.utf8)
        return bytes.withUnsafeMutableBytes { raw in
            guard let base = raw.baseAddress else { return true }
            var offset = 0
            while offset < raw.count {
                let written = Glibc.write(fd, base + offset, raw.count - offset)
                if written > 0 {
                    offset += written
                    continue
                }
                guard written < 0 else { return true }
                switch errno {
                case EINTR:
                    continue
                case EAGAIN, EWOULDBLOCK:
                    var ready = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                    _ = poll(&ready, 1, -1)
                case EPIPE:
                    return false
                default:
                    return true
                }
            }
            return true
        }
    }

    /// Ends the process the way a Unix command ends when its reader goes away: by SIGPIPE (the process ignores it
    /// while it runs, so that sockets report `EPIPE` instead).
    public static func endAsIfByBrokenPipe() -> Never {
        signal(SIGPIPE, SIG_DFL)
        raise(SIGPIPE)
        exit(128 + SIGPIPE)
    }
}
