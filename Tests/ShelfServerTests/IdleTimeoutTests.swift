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
        let clock = ManualClock()
        try await withTestServer(configuration: Self.configuration(idleTimeout: .seconds(1)), clock: clock) { server in
            let watcher = try await server.connect()
            defer { watcher.close() }
            #expect(try await watcher.call(#"{"jsonrpc":"2.0","id":1,"method":"watch"}"#).member("result", "revision") == 0)
            let idle = try await server.connect()
            defer { idle.close() }
            #expect(try await idle.call(#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#).member("result") == "pong")
            try await clock.waitForTimers(2)
            clock.advance(by: .milliseconds(999))
            #expect(try await idle.call(#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#).member("result") == "pong")
            clock.advance(by: .milliseconds(1000))

            let closing = try #require(try await idle.readLine())
            let notification = try JSONParser.parse(Array(closing.utf8))
            #expect(notification.member("method") == "closing")
            #expect(notification.member("params", "reason") == "idle_timeout")
            #expect(notification.member("id") == nil, "a notification has no id")
            #expect(try await idle.readLine() == nil, "then the end of the stream")

            #expect(try await watcher.call(#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#).member("result") == "pong")
        }
    }

    @Test("a connection that keeps sending within the timeout is not closed; one silent as long beside it is")
    func activeKept() async throws {
        let clock = ManualClock()
        try await withTestServer(configuration: Self.configuration(idleTimeout: .seconds(1)), clock: clock) { server in
            let active = try await server.connect()
            defer { active.close() }
            let idle = try await server.connect()
            defer { idle.close() }
            #expect(try await idle.call(#"{"jsonrpc":"2.0","id":0,"method":"ping"}"#).member("result") == "pong")
            try await clock.waitForTimers(2)
            // 2.4 s in all, never 1 s without a request from `active`.
            for ping in 1...4 {
                #expect(try await active.call(#"{"jsonrpc":"2.0","id":\#(ping),"method":"ping"}"#).member("result") == "pong")
                clock.advance(by: .milliseconds(600))
            }
            #expect(try await idle.readLine()?.contains("idle_timeout") == true)
            #expect(try await active.call(#"{"jsonrpc":"2.0","id":0,"method":"ping"}"#).member("result") == "pong")
        }
    }
}
