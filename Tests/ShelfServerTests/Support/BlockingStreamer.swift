import Foundation
import Glibc
import Synchronization

/// A peer that never lets the server's receive buffer run dry: from a thread of its own, it sends the same chunk to
/// 127.0.0.1 over a blocking socket as fast as the socket takes it, until `stop()`. It never reads.
final class BlockingStreamer: Sendable {
    /// Bytes the socket has taken so far.
    let sentBytes = Atomic<Int>(0)
    private let stopped = Atomic<Bool>(false)

    private init() {}

    /// Connects to `127.0.0.1:port` (blocking) and starts sending `chunk` over and over.
    /// - Throws: `POSIXError` with the errno of `socket` or `connect`.
    static func start(port: UInt16, chunk: [UInt8]) throws -> BlockingStreamer {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            let code = errno
            close(fd)
            throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
        }
        // A send blocked on a full buffer gives up after a second, so the thread sees `stop()` even when the server
        // no longer reads.
        var timeout = timeval(tv_sec: 1, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let streamer = BlockingStreamer()
        Thread.detachNewThread { streamer.send(chunk, on: fd) }
        return streamer
    }

    /// Makes the thread stop sending and close its socket (within about a second).
    func stop() {
        stopped.store(true, ordering: .relaxed)
    }

    private func send(_ chunk: [UInt8], on fd: Int32) {
        defer { close(fd) }
        chunk.withUnsafeBytes { raw in
            while !stopped.load(ordering: .relaxed) {
                let sent = Glibc.send(fd, raw.baseAddress, raw.count, Int32(MSG_NOSIGNAL))
                if sent > 0 {
                    sentBytes.add(sent, ordering: .relaxed)
                } else if sent < 0, errno != EINTR, errno != EAGAIN, errno != EWOULDBLOCK {
                    return
                }
            }
        }
    }
}
