import Glibc
import Testing
@testable import ShelfSockets
import ShelfTestSupport

/// A listener on loopback port 0 plus both ends of one accepted connection.
struct LoopbackPair {
    let listener: TCPListener
    let client: TCPConnection
    let server: TCPConnection

    /// - Parameter host: `127.0.0.1` or `::1` only.
    static func make(host: String = "127.0.0.1", reactor: Reactor = .shared) async throws -> LoopbackPair {
        let listener = try TCPListener.listen(on: HostPort(host: host, port: 0), reactor: reactor)
        let (client, server) = try await withDeadline {
            async let accepted = listener.accept()
            let client = try await TCPConnection.connect(to: listener.localAddress, reactor: reactor)
            return (client, try await accepted)
        }
        return LoopbackPair(listener: listener, client: client, server: server)
    }

    func close() {
        client.close()
        server.close()
        listener.close()
    }

    /// Caps the kernel buffers of the client's sending side and the server's receiving side at 64 KiB each
    /// (`SO_SNDBUF`, `SO_RCVBUF`, which also turns their autotuning off), so a write of a few MiB always fills them
    /// and parks. Loopback autotuning could otherwise take a whole 8 MiB write, leaving a test that waits for the
    /// writer to park waiting forever (2 runs under heavy load timed out so).
    func capBuffers() throws {
        var size: Int32 = 64 << 10
        for (connection, option) in [(client, SO_SNDBUF), (server, SO_RCVBUF)] {
            let rc = try connection.handle.withDescriptor { fd in
                setsockopt(fd, SOL_SOCKET, option, &size, socklen_t(MemoryLayout<Int32>.size))
            }
            if rc != 0 { throw SocketError.lastError("setsockopt") }
        }
    }
}

extension TCPConnection {
    /// Reads until `count` bytes arrived; fewer only at end of stream.
    func read(exactly count: Int) async throws -> [UInt8] {
        var collected: [UInt8] = []
        collected.reserveCapacity(count)
        while collected.count < count {
            let chunk = try await read(maxBytes: min(count - collected.count, 65_536))
            if chunk.isEmpty { break }
            collected += chunk
        }
        return collected
    }

    /// Reads until end of stream.
    func readToEnd() async throws -> [UInt8] {
        var collected: [UInt8] = []
        while true {
            let chunk = try await read()
            if chunk.isEmpty { return collected }
            collected += chunk
        }
    }
}

/// `count` bytes of a recognisable pattern (not a multiple of any buffer size).
/// Built from block copies: element-wise generation of megabytes is slow in debug builds.
func patternBytes(_ count: Int, seed: Int = 0) -> [UInt8] {
    let cycle = (0..<251).map { UInt8(($0 + seed) % 251) }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(count)
    while bytes.count < count {
        bytes.append(contentsOf: cycle.prefix(count - bytes.count))
    }
    return bytes
}

/// Whether this machine can bind an IPv6 socket to `::1`.
let ipv6LoopbackAvailable: Bool = {
    guard let listener = try? TCPListener.listen(on: HostPort(host: "::1", port: 0)) else { return false }
    listener.close()
    return true
}()
