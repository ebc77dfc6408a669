import Foundation
import Testing

/// An idle connection holds no request bytes: lines are slices of the socket read that brought them
/// (`LineFramer`), so a session that kept its last lines while waiting for the next read would keep that whole
/// read (up to 64 KiB) per connection.
@Suite struct IdleMemoryTests {
    static let connections = 300
    /// A ping padded to 60,000 bytes: nearly one whole 64 KiB read per connection.
    static let line = #"{"id":1,"method":"ping","pad":""# + String(repeating: "x", count: 60_000) + #""}"#

    @Test("300 connections that each sent a 60 KB line and went idle hold less than 40 KiB each (not their last read)")
    func idleConnectionsDoNotKeepTheirLastRead() async throws {
        try await Sandbox.with { sandbox in try await withShelfd(["--store", "memory"], environment: sandbox.environment) { shelfd in
            let port = try #require(UInt16(shelfd.port))
            let before = try #require(shelfd.child.residentKiB, "no /proc/PID/status")
            let held = await onOwnThread { () -> Result<[BlockingLineSocket], LineSocketError> in
                Result {
                    let sockets = try (0..<Self.connections).map { _ in try BlockingLineSocket.connect(port: port) }
                    for socket in sockets { try socket.sendLine(Self.line) }
                    // Answered (with an error for the unknown member or a pong; either way read in full).
                    for socket in sockets { _ = try socket.readLine() }
                    return sockets
                }.mapError { $0 as? LineSocketError ?? .timedOut("\($0)") }
            }
            let sockets = try held.get()
            defer { for socket in sockets { socket.close() } }
            let after = try #require(shelfd.child.residentKiB)
            let perConnection = (after - before) / Self.connections
            // With the last read kept, each connection held 60+ KiB more (measured: 84 KiB); without, about 14.
            #expect(perConnection < 40, "\(perConnection) KiB per idle connection (\(before) -> \(after) KiB)")
        } }
    }
}
