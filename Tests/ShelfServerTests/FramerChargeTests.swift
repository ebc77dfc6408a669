import ShelfJSON
@testable import ShelfServer
import ShelfSockets
import ShelfTestSupport
import Testing

/// The framer's charge against the server's memory account.
@Suite struct FramerChargeTests {
    /// When the framer's charge succeeds but leaves the account exactly at its ceiling, the session closed before
    /// it recorded the charge, so its deferred refund gave back only the old one and the last increment (25,627
    /// bytes here) stayed charged to the server for good.
    @Test("a connection closed for memory with an unfinished line gives back everything it was charged")
    func framerChargeRefundedWhenFull() async throws {
        var configuration = ServerConfiguration(listen: HostPort(host: "127.0.0.1", port: 0))
        configuration.maxMemoryBytes = 1 << 20
        configuration.maxLineBytes = 2 << 20
        try await withTestServer(configuration: configuration) { server in
            let peer = try await server.connect()
            // Exactly the ceiling, as one unfinished line.
            try await peer.send(bytes: [UInt8](repeating: UInt8(ascii: "a"), count: 1 << 20))
            let closing = try JSONParser.parse(Array(try #require(try await peer.readLine()).utf8))
            #expect(closing.member("params", "reason") == "memory_limit")
            peer.close()
            // The session ends once it sees the close; a leak never lets the account reach 0 (the deadline fails).
            try await withDeadline(seconds: 10) { try await waitUntil { server.server.memory.heldBytes == 0 } }
            #expect(server.server.memory.heldBytes == 0, "still charged after the session ended: \(server.server.memory.heldBytes) bytes")
        }
    }
}
