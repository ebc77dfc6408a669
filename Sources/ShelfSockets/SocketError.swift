import Glibc

/// An error from a socket operation.
///
/// Syscall failures carry the `errno` captured immediately after the call returned -1, so the value is never
/// clobbered by a later call.
public enum SocketError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The named system call returned -1 with this `errno` (for example `accept` with `EMFILE`).
    case failed(call: String, errno: Int32)
    /// This side closed the socket (`close()` was called) before or while the operation waited.
    case closed
    /// The peer reset or closed the connection: `EPIPE`/`ECONNRESET` on write, `ECONNRESET` on read.
    case peerClosed
    /// `getaddrinfo` could not resolve `host`; `message` is the `gai_strerror` text.
    case addressResolution(host: String, message: String)
    /// The text is not a valid `HOST:PORT` address.
    case invalidAddress(String)

    /// A one-line, human-readable description, e.g. `accept() failed: Too many open files (errno 24)`.
    public var description: String {
        switch self {
        case .failed(let call, let code):
            return "\(call)() failed: \(Self.message(forErrno: code)) (errno \(code))"
        case .closed:
            return "socket closed"
        case .peerClosed:
            return "connection closed by peer"
        case .addressResolution(let host, let message):
            return "cannot resolve '\(host)': \(message)"
        case .invalidAddress(let text):
            return "invalid address '\(text)': expected HOST:PORT, e.g. 127.0.0.1:7453 or [::1]:7453"
        }
    }

    /// Builds `.failed(call:errno:)` from the current `errno`; call it right after the -1 return.
    static func lastError(_ call: String) -> SocketError {
        .failed(call: call, errno: errno)
    }

    private static func message(forErrno code: Int32) -> String {
        guard let text = strerror(code) else { return "unknown error" }
        return String(cString: text)
    }
}
