import ShelfJSON
import ShelfServer
import ShelfSockets
import ShelfTestSupport
import Testing

/// `shelfd --idle-timeout` (protocol/PROTOCOL.md §10): a connection that sends nothing for that long gets a
/// `closing` notification with reason `idle_timeout` and is closed; a watching one is exempt.
@Suite struct IdleTimeoutTests {
    /// A loopback server's configuration with `--idle-timeout`.
    private static func configuration(idleTimeout: Duration) -> ServerConfiguration {
        var configuration = ServerConfiguration(listen: HostPort(host: "127.0.0.1", port: 0))
        configuration.idleTimeout = idleTimeout
        return configuration
    }

    @Test("an idle connection is told idle_timeout and closed; a watcher idle as long is kept and still answers")
    func idleClosedWatcherKept() async throws {
        try await withTestServer(configuration: Self.configuration(idleTimeout: .seconds(1))) { server in
            let watcher = try await server.connect()
            defer { watcher.close() }
            #expect(try await watcher.call(#"{"jsonrpc":"2.0","id":1,"method":"watch"}"#).member("result", "revision") == 0)
            // Connected after the watcher's last request: once it is closed, the watcher has been idle as long.
            let idle = try await server.connect()
            defer { idle.close() }

            let closing = try #require(try await withDeadline(seconds: 30) { try await idle.readLine() })
            let notification = try JSONParser.parse(Array(closing.utf8))
            #expect(notification.member("method") == "closing")
            #expect(notification.member("params", "reason") == "idle_timeout")
            #expect(notification.member("id") == nil, "a notification has no id")
            #expect(try await withDeadline(seconds: 30) { try await idle.readLine() } == nil, "then the end of the stream")

            #expect(try await watcher.call(#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#).member("result") == "pong")
        }
    }

    @Test("a connection that keeps sending within the timeout is not closed")
    func activeKept() async throws {
        // Wide: pings 100 ms apart must never look like 5 s of silence, even when a loaded suite stalls the loop.
        try await withTestServer(configuration: Self.configuration(idleTimeout: .seconds(5))) { server in
            let active = try await server.connect()
            defer { active.close() }
            let idle = try await server.connect()
            defer { idle.close() }
            // Pings from `active` every 100 ms until `idle`, connected after it, has been closed: `active` has then
            // been connected longer than the timeout, but never silent for it. (The pacing is the subject here.)
            let closed = Task { try await withDeadline(seconds: 30) { try await idle.readLine() } }
            var pings = 0
            var closing: String??
            // A ping, then up to 100 ms waiting for `idle`'s closing line, until it comes.
            while closing == nil {
                pings += 1
                #expect(try await active.call(#"{"jsonrpc":"2.0","id":\#(pings),"method":"ping"}"#).member("result") == "pong")
                closing = try await result(within: .milliseconds(100)) { try await closed.value }
            }
            #expect(closing??.contains("idle_timeout") == true)
            #expect(try await active.call(#"{"jsonrpc":"2.0","id":0,"method":"ping"}"#).member("result") == "pong")
        }
    }
}
