import ShelfServer
import ShelfSockets
import Testing

/// A connection over `--max-connections` gets its one error line and then a clean end of stream
/// (protocol/PROTOCOL.md §8 and the end of §12), even when it had already sent a request.
@Suite struct ConnectionLimitTests {
    static let refusal =
        #"{"jsonrpc":"2.0","id":null,"error":{"code":7,"message":"Too many connections (the limit is 1); try again later","data":{"reason":"too_many_connections"}}}"#

    /// Closing with the request unread reset the connection: every one of these ended in ECONNRESET after the
    /// line, and `nc` often showed nothing at all.
    @Test("30 connections over a limit of 1, each sending a ping at once: each reads the error line, then end of stream, not a reset")
    func refusedAfterARequest() async throws {
        var configuration = ServerConfiguration(listen: HostPort(host: "127.0.0.1", port: 0))
        configuration.maxConnections = 1
        try await withTestServer(configuration: configuration) { server in
            let held = try await server.connect()
            defer { held.close() }
            #expect(try await held.call(#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#).member("result") == "pong")
            for attempt in 0..<30 {
                let refused = try await server.connect()
                defer { refused.close() }
                try await refused.send(#"{"jsonrpc":"2.0","id":\#(attempt),"method":"ping"}"# + "\n")
                #expect(try await refused.readLine() == Self.refusal, "attempt \(attempt)")
                #expect(try await refused.readLine() == nil, "attempt \(attempt): a clean end of stream")
            }
            #expect(try await held.call(#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#).member("result") == "pong")
        }
    }
}
