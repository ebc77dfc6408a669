@testable import ShelfServer
import ShelfSockets
import Testing
import ShelfTestSupport

/// Log lines a peer can cause at will are rate-limited per kind, server-wide, with a count of what was held back
/// (`ServerLog.throttled`): a connect flood logged 15,634 "refused" lines a second. (Authentication's lines have
/// their own throttle, `AuthGate`.)
@Suite struct PeerLogThrottleTests {
    @Test("one line per kind per second; held-back lines are counted into the next; kinds and copies share nothing but the log")
    func throttlesPerKind() {
        let lines = Locked<[String]>([])
        let log = ServerLog { line in lines.withLock { $0.append(line) } }
        let copy = log
        let start = ContinuousClock.now
        log.throttled(.refused, now: start, "refused 1")
        copy.throttled(.refused, now: start + .milliseconds(500), "refused 2")
        log.throttled(.closedForReason, now: start + .milliseconds(600), "closed 1")
        log.throttled(.refused, now: start + .milliseconds(999), "refused 3")
        log.throttled(.refused, now: start + .seconds(1), "refused 4")
        log.throttled(.refused, now: start + .seconds(3), "refused 5")
        #expect(lines.withLock { $0 } == [
            "refused 1",
            "closed 1",
            "refused 4 (2 more such lines not logged since the last one)",
            "refused 5",
        ])
    }

    @Test("400 connections refused over --max-connections 1: a bounded number of refusal lines, and a later one counts those held back")
    func refusalFloodIsThrottled() async throws {
        var configuration = ServerConfiguration(listen: HostPort(host: "127.0.0.1", port: 0))
        configuration.maxConnections = 1
        try await withRecordingTestServer(configuration: configuration) { server, recorder in
            let held = try await server.connect()
            defer { held.close() }
            #expect(try await held.call(#"{"id":1,"method":"ping"}"#).member("result") == "pong")
            let start = ContinuousClock.now
            for _ in 0..<400 {
                let refused = try await server.connect()
                #expect(try await refused.readLine()?.contains(#""code":7,"#) == true)
                refused.close()
            }
            let elapsed = ContinuousClock.now - start
            let logged = recorder.count(containing: "refused: 1 connection open")
            #expect(logged >= 1 && Double(logged) <= elapsed / ServerLog.peerLineInterval + 1, "\(logged) lines in \(elapsed)")
            // Each refusal is an event: refuse more until one is logged with the count of those held back.
            while recorder.count(containing: " not logged since the last one)") == 0 {
                let refused = try await server.connect()
                _ = try await refused.readLine()
                refused.close()
            }
            #expect(try await held.call(#"{"id":2,"method":"ping"}"#).member("result") == "pong")
        }
    }
}
