import Foundation
import ShelfJSON
@testable import ShelfServer
import ShelfSockets
import ShelfTestSupport
import Testing

/// One busy connection never keeps the shared event loop to itself (protocol/PROTOCOL.md §10; Session.readLoop).
struct EventLoopFairnessTests {
    @Test("a peer streaming one endless line, faster than the server reads it, does not keep another connection's ping from its pong")
    func endlessLineDoesNotStarveOthers() async throws {
        // Reads of 64 bytes always come back full while the streamer runs: without the session's yield after a
        // full read, its reader would never suspend, and nothing else would run on the loop.
        var configuration = ServerConfiguration(listen: HostPort(host: "127.0.0.1", port: 0))
        configuration.readChunkBytes = 64
        try await withTestServer(configuration: configuration, seconds: 60) { server in
            // Sent 4 KiB at a time, so that the check below needs the server to read only 64 reads' worth: with 64 KiB
            // sends, 1,024 turns of a loop shared with a loaded parallel suite once took over 10 s.
            let streamer = try BlockingStreamer.start(port: server.address.port, chunk: [UInt8](repeating: 0x78, count: 4096))
            defer { streamer.stop() }
            // The stream is flowing: from its first readable event the server's reader finds every read full. (A
            // bigger threshold would wait for the server to read it, 64 bytes at a time, which under a full
            // parallel test run took over 10 s for 16 MiB.)
            try await withDeadline {
                try await waitUntil { streamer.sentBytes.load(ordering: .relaxed) > 1 << 20 }
            }
            let pong = try await result(within: .seconds(5)) {
                let other = try await server.connect()
                defer { other.close() }
                return try await other.call(#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#)
            }
            #expect(pong == (try JSONParser.parse(Array(#"{"jsonrpc":"2.0","id":1,"result":"pong"}"#.utf8))))
            // Still streaming when the pong came: it was not the streamer's pause that let the ping through.
            let before = streamer.sentBytes.load(ordering: .relaxed)
            try await withDeadline(seconds: 25) {
                try await waitUntil { streamer.sentBytes.load(ordering: .relaxed) > before }
            }
        }
    }
}
