import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Why a `BlockingLineSocket` call failed.
enum LineSocketError: Error, CustomStringConvertible {
    /// A system call failed with this errno.
    case failed(call: String, errno: Int32)
    /// Nothing happened within the timeout.
    case timedOut(String)

    var description: String {
        switch self {
        case .failed(let call, let code): "\(call) failed: \(String(cString: strerror(code))) (errno \(code))"
        case .timedOut(let what): "timed out \(what)"
        }
    }
}

/// A TCP client to 127.0.0.1 for end-to-end tests that must talk to a real `shelfd` without the Shelf libraries:
/// send bytes, read LF-terminated lines. Every call blocks (each wait bounded by `poll` with a timeout), so use it only
/// on a thread of its own (`onOwnThread`), never on the cooperative pool.
///
/// - Important: not thread-safe; one thread at a time.
final class BlockingLineSocket: @unchecked Sendable {
    private var fd: Int32
    private var buffer: [UInt8] = []
    private var atEnd = false

    private init(fd: Int32) {
        self.fd = fd
    }

    deinit {
        close()
    }

    /// Connects to `127.0.0.1:port`.
    /// - Throws: `LineSocketError` (e.g. `ECONNREFUSED`, or a timeout when the server's backlog is full).
    static func connect(port: UInt16, timeout: Duration = .seconds(5)) throws -> BlockingLineSocket {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw LineSocketError.failed(call: "socket", errno: errno) }
        let connection = BlockingLineSocket(fd: fd)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        if result != 0 {
            let code = errno
            guard code == EINPROGRESS else { throw LineSocketError.failed(call: "connect", errno: code) }
            try connection.wait(for: Int16(POLLOUT), timeout: timeout, what: "connecting to port \(port)")
            var error: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
            if error != 0 { throw LineSocketError.failed(call: "connect", errno: error) }
        }
        return connection
    }

    /// Sends all of `bytes` (`MSG_NOSIGNAL`: a closed peer is an error, not SIGPIPE).
    func send(_ bytes: [UInt8], timeout: Duration = .seconds(10)) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { raw in
                Glibc.send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
            }
            if sent >= 0 {
                offset += sent
                continue
            }
            let code = errno
            if code == EINTR { continue }
            guard code == EAGAIN || code == EWOULDBLOCK else { throw LineSocketError.failed(call: "send", errno: code) }
            try wait(for: Int16(POLLOUT), timeout: timeout, what: "sending")
        }
    }

    /// Sends `text` followed by LF.
    func sendLine(_ text: String, timeout: Duration = .seconds(10)) throws {
        try send(Array(text.utf8) + [0x0A], timeout: timeout)
    }

    /// Whether a whole line is already buffered (so `readLine` will not wait).
    var hasBufferedLine: Bool { buffer.contains(0x0A) }

    /// The next line without its LF, or `nil` at end of stream (also for a last line without LF).
    /// - Throws: `.timedOut` when no complete line arrives within `timeout`; `.failed` (e.g. `ECONNRESET`).
    func readLine(timeout: Duration = .seconds(10)) throws -> String? {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            if atEnd { return nil }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                buffer.append(contentsOf: chunk[..<count])
            } else if count == 0 {
                atEnd = true
            } else {
                let code = errno
                if code == EINTR { continue }
                guard code == EAGAIN || code == EWOULDBLOCK else { throw LineSocketError.failed(call: "recv", errno: code) }
                let left = deadline - ContinuousClock.now
                guard left > .zero else { throw LineSocketError.timedOut("waiting for a line") }
                try wait(for: Int16(POLLIN), timeout: left, what: "waiting for a line")
            }
        }
    }

    /// Shuts down the sending side; the server reads end of stream.
    func shutdownWrite() {
        if fd >= 0 { _ = shutdown(fd, Int32(SHUT_WR)) }
    }

    /// Closes the socket. Idempotent.
    func close() {
        if fd >= 0 { _ = Glibc.close(fd) }
        fd = -1
    }

    private func wait(for events: Int16, timeout: Duration, what: String) throws {
        let deadline = ContinuousClock.now + timeout
        while true {
            let left = deadline - ContinuousClock.now
            let milliseconds = max(0, Int32(left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000))
            var poller = pollfd(fd: fd, events: events, revents: 0)
            let ready = poll(&poller, 1, milliseconds)
            if ready > 0 { return }
            if ready < 0, errno == EINTR { continue }
            if ready < 0 { throw LineSocketError.failed(call: "poll", errno: errno) }
            throw LineSocketError.timedOut(what)
        }
    }
}

/// Runs `body` on a new thread of its own (it may block) and returns its result.
func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread.detachNewThread { continuation.resume(returning: body()) }
    }
}
