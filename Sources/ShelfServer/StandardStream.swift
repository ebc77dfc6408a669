import Glibc

/// Standard output or standard error, written with `write(2)`: unbuffered, partial writes and `EINTR` retried.
/// When nobody reads any more (`EPIPE`, as in `shelf list | head -1` or `shelfd 2>&1 | head`), or on any other
/// error, the text is dropped: Foundation's `FileHandle.write(_:)` traps instead, and a log line must never end
/// the server.
public enum StandardStream: Sendable {
    case output
    case error

    /// Writes `text` (as UTF-8), all of it unless the stream fails.
    public func write(_ text: String) {
        let fd: Int32 = self == .output ? STDOUT_FILENO : STDERR_FILENO
        var bytes = Array(text.utf8)
        bytes.withUnsafeMutableBytes { raw in
            guard let base = raw.baseAddress else { return }
            var offset = 0
            while offset < raw.count {
                let written = Glibc.write(fd, base + offset, raw.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0, errno == EINTR {
                    continue
                } else {
                    return
                }
            }
        }
    }
}
