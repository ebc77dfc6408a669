import Glibc
@testable import ShelfSockets
import Synchronization
import Testing
import ShelfTestSupport

struct TCPConnectionTests {
    @Test func bytesRoundTripInBothDirections() async throws {
        let pair = try await LoopbackPair.make()
        defer { pair.close() }
        try await withDeadline {
            try await pair.client.write(Array("ping".utf8))
            #expect(try await pair.server.read(exactly: 4) == Array("ping".utf8))
            try await pair.server.write(Array("pong".utf8))
            #expect(try await pair.client.read(exactly: 4) == Array("pong".utf8))
        }
    }

    @Test(.enabled(if: ipv6LoopbackAvailable))
    func bytesRoundTripOverIPv6() async throws {
        let pair = try await LoopbackPair.make(host: "::1")
        defer { pair.close() }
        #expect(pair.server.peer.hasPrefix("[::1]:"))
        try await withDeadline {
            try await pair.client.write([42])
            #expect(try await pair.server.read() == [42])
            try await pair.server.write([43])
            #expect(try await pair.client.read() == [43])
        }
    }

    @Test func aLargeWriteToASlowReaderCompletes() async throws {
        let pair = try await LoopbackPair.make()
        defer { pair.close() }
        try pair.capBuffers()
        let payload = patternBytes(8 << 20)
        try await withDeadline {
            async let written: Void = pair.client.write(payload)
            // Read nothing until the writer has filled the socket buffers and parked on EAGAIN.
            try await waitUntil { pair.client.registration.writable.hasWaiter }
            let received = try await pair.server.read(exactly: payload.count)
            try await written
            #expect(received.count == payload.count)
            #expect(received == payload)
        }
    }

    @Test func readReturnsEmptyAtEndOfStreamAndTheOtherDirectionStaysOpen() async throws {
        let pair = try await LoopbackPair.make()
        defer { pair.close() }
        try await withDeadline {
            try await pair.client.write(Array("bye".utf8))
            pair.client.shutdownWrite()
            pair.client.shutdownWrite()
            #expect(try await pair.server.readToEnd() == Array("bye".utf8))
            #expect(try await pair.server.read() == [])
            try await pair.server.write(Array("ack".utf8))
            #expect(try await pair.client.read(exactly: 3) == Array("ack".utf8))
        }
    }

    /// SIGPIPE is deliberately left at its default here: without MSG_NOSIGNAL the process would die.
    @Test func writingToAClosedPeerThrowsPeerClosed() async throws {
        let pair = try await LoopbackPair.make()
        defer { pair.close() }
        pair.server.close()
        try await withDeadline {
            let chunk = patternBytes(64 << 10)
            await #expect(throws: SocketError.peerClosed) {
                // The first writes may still be accepted locally; the peer's reset makes a later one fail.
                for _ in 0..<10_000 { try await pair.client.write(chunk) }
            }
        }
    }

    @Test func closeWakesAPendingReadWithClosed() async throws {
        let pair = try await LoopbackPair.make()
        defer { pair.close() }
        let reading = Task { try await pair.client.read() }
        try await withDeadline { try await waitUntil { pair.client.registration.readable.hasWaiter } }
        pair.client.close()
        await #expect(throws: SocketError.closed) { _ = try await reading.value }
        await #expect(throws: SocketError.closed) { _ = try await pair.client.read() }
        await #expect(throws: SocketError.closed) { try await pair.client.write([1]) }
        pair.client.close()
        pair.client.shutdownWrite()
    }

    @Test func cancellingAPendingReadResumesItAndTheConnectionStaysUsable() async throws {
        let pair = try await LoopbackPair.make()
        defer { pair.close() }
        let reading = Task { try await pair.client.read() }
        try await withDeadline { try await waitUntil { pair.client.registration.readable.hasWaiter } }
        reading.cancel()
        await #expect(throws: CancellationError.self) { _ = try await reading.value }
        try await withDeadline {
            try await pair.server.write([7])
            #expect(try await pair.client.read() == [7])
        }
    }

    @Test func unreadBytesCountsWhatArrivedAndIsNotReadYet() async throws {
        let pair = try await LoopbackPair.make()
        defer { pair.close() }
        #expect(pair.client.unreadBytes == 0)
        try await pair.server.write([1, 2, 3, 4, 5])
        try await withDeadline { try await waitUntil { pair.client.unreadBytes == 5 } }
        #expect(try await pair.client.read() == [1, 2, 3, 4, 5])
        #expect(pair.client.unreadBytes == 0)
        pair.client.close()
        #expect(pair.client.unreadBytes == nil)
    }

    @Test func aReadAndAWriteCanBePendingAtTheSameTime() async throws {
        let pair = try await LoopbackPair.make()
        defer { pair.close() }
        try pair.capBuffers()
        let payload = patternBytes(8 << 20, seed: 3)
        try await withDeadline {
            async let reading = pair.client.read()
            async let writing: Void = pair.client.write(payload)
            try await waitUntil {
                pair.client.registration.readable.hasWaiter && pair.client.registration.writable.hasWaiter
            }
            try await pair.server.write([9, 9])
            let read = try await reading
            #expect(read == [9, 9])
            #expect(try await pair.server.read(exactly: payload.count) == payload)
            try await writing
        }
    }

    @Test func connectingToAPortWithNothingListeningIsRefused() async throws {
        // A socket bound but not listening keeps the port: no test running in parallel can listen on it meanwhile.
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(fd >= 0)
        defer { _ = Glibc.close(fd) }
        var bound = sockaddr_in()
        bound.sin_family = sa_family_t(AF_INET)
        bound.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &bound) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        try #require(named)
        let address = HostPort(host: "127.0.0.1", port: UInt16(bigEndian: bound.sin_port))
        try await withDeadline {
            await #expect(throws: SocketError.failed(call: "connect", errno: ECONNREFUSED)) {
                _ = try await TCPConnection.connect(to: address)
            }
        }
    }

    @Test func connectingByNameResolvesAndTriesEachAddress() async throws {
        let listener = try TCPListener.listen(on: HostPort(host: "127.0.0.1", port: 0))
        defer { listener.close() }
        try await withDeadline {
            async let accepted = listener.accept()
            let client = try await TCPConnection.connect(to: HostPort(host: "localhost", port: listener.localAddress.port))
            let server = try await accepted
            try await client.write([5])
            #expect(try await server.read() == [5])
            client.close()
            server.close()
        }
    }
}
