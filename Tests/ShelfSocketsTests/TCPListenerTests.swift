import Glibc
@testable import ShelfSockets
import Testing
import ShelfTestSupport

struct TCPListenerTests {
    @Test func listeningOnPortZeroReportsARealPort() throws {
        let listener = try TCPListener.listen(on: HostPort(host: "127.0.0.1", port: 0))
        defer { listener.close() }
        #expect(listener.localAddress.host == "127.0.0.1")
        #expect(listener.localAddress.port != 0)
    }

    @Test(.enabled(if: ipv6LoopbackAvailable))
    func anIPv6ListenerReportsItsBracketedAddress() throws {
        let listener = try TCPListener.listen(on: HostPort(parsing: "[::1]:0"))
        defer { listener.close() }
        #expect(listener.localAddress.host == "::1")
        #expect(listener.localAddress.description == "[::1]:\(listener.localAddress.port)")
    }

    @Test func listeningOnAPortInUseFailsInBind() throws {
        let first = try TCPListener.listen(on: HostPort(host: "127.0.0.1", port: 0))
        defer { first.close() }
        #expect(throws: SocketError.failed(call: "bind", errno: EADDRINUSE)) {
            try TCPListener.listen(on: first.localAddress)
        }
    }

    @Test func closingWakesAPendingAccept() async throws {
        let listener = try TCPListener.listen(on: HostPort(host: "127.0.0.1", port: 0))
        let accepting = Task { try await listener.accept() }
        try await withDeadline { try await waitUntil { listener.registration.readable.hasWaiter } }
        listener.close()
        await #expect(throws: SocketError.closed) { _ = try await accepting.value }
        await #expect(throws: SocketError.closed) { _ = try await listener.accept() }
        listener.close()
    }

    @Test func cancellingAPendingAcceptResumesIt() async throws {
        let listener = try TCPListener.listen(on: HostPort(host: "127.0.0.1", port: 0))
        defer { listener.close() }
        let accepting = Task { try await listener.accept() }
        try await withDeadline { try await waitUntil { listener.registration.readable.hasWaiter } }
        accepting.cancel()
        await #expect(throws: CancellationError.self) { _ = try await accepting.value }

        // The listener still works afterwards.
        let pair = try await withDeadline {
            async let accepted = listener.accept()
            let client = try await TCPConnection.connect(to: listener.localAddress)
            return (client, try await accepted)
        }
        pair.0.close()
        pair.1.close()
    }

    @Test func acceptedConnectionsHaveIncreasingIdsAndPeerAddresses() async throws {
        let first = try await LoopbackPair.make()
        defer { first.close() }
        let second = try await LoopbackPair.make()
        defer { second.close() }
        #expect(first.server.id < second.server.id)
        #expect(first.client.id != first.server.id)
        #expect(first.server.peer.hasPrefix("127.0.0.1:"))
        #expect(first.client.peer == first.listener.localAddress.description)
    }
}
