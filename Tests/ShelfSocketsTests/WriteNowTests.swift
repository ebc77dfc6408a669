import Testing
@testable import ShelfSockets
import ShelfTestSupport

/// `writeNow` sends what the socket takes without suspending: all of a small write, and only part of one larger
/// than the send and receive buffers when the peer does not read.
@Suite struct WriteNowTests {
    @Test("a small write is taken whole and arrives intact")
    func smallWrite() async throws {
        let pair = try await LoopbackPair.make()
        defer { pair.close() }
        let bytes = patternBytes(1000)
        #expect(try pair.client.writeNow(bytes[...]) == 1000)
        #expect(try await withDeadline { try await pair.server.read(exactly: 1000) } == bytes)
    }

    @Test("a write larger than the socket buffers to a peer that does not read is taken only in part")
    func partialWrite() async throws {
        let pair = try await LoopbackPair.make()
        defer { pair.close() }
        let bytes = patternBytes(64 << 20)
        let sent = try pair.client.writeNow(bytes[...])
        #expect(sent > 0)
        #expect(sent < bytes.count)
    }
}
