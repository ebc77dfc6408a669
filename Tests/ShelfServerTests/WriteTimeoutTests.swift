@testable import ShelfServer
import ShelfSockets
import Testing
import ShelfTestSupport

/// A connection closed because a write waited `writeTimeout` for the peer to read is logged with that reason
/// (protocol/PROTOCOL.md §10), not as "socket closed".
@Suite struct WriteTimeoutTests {
    @Test("a peer that pipelines lists of a 690 KB list and reads nothing is closed after the write timeout, and the log says why")
    func loggedWithItsReason() async throws {
        var configuration = ServerConfiguration(listen: HostPort(host: "127.0.0.1", port: 0))
        configuration.writeTimeout = .milliseconds(300)
        let clock = ManualClock()
        try await withRecordingTestServer(configuration: configuration, clock: clock, seconds: 20) { server, recorder in
            let setup = try await server.connect()
            defer { setup.close() }
            // The longest title allowed: 600 items make a `list` reply of ~690 KB.
            let title = String(repeating: "w", count: 1000)
            try await setup.send((1...600).map { #"{"id":\#($0),"method":"add","params":{"title":"\#(title)"}}"# + "\n" }.joined())
            for _ in 1...600 { _ = try await setup.readLine() }
            let stalled = try await server.connect()
            defer { stalled.close() }
            // 60 replies of ~690 KB: far more than the 8 MiB budget and the socket buffers hold.
            let lists = (1...60).map { #"{"id":\#($0),"method":"list"}"# }.joined(separator: "\n") + "\n"
            try await stalled.send(lists)
            // The socket is full: the write deadline is armed.
            try await clock.waitForTimers(1)
            clock.advance(by: .milliseconds(299))
            #expect(recorder.count(containing: "closed (") == 0)
            clock.advance(by: .milliseconds(1))
            let line = try await withDeadline(seconds: 10) { await recorder.waitForLine(containing: "closed (") }
            #expect(line.hasSuffix("closed (write timed out: the peer read nothing for 300 ms)"), "\(line)")
            // Nobody else was held up.
            #expect(try await setup.call(#"{"id":"p","method":"ping"}"#).member("result") == "pong")
        }
    }

    @Test("the timeout is spelled in seconds when whole, else in milliseconds")
    func spelling() {
        #expect(WriteTimedOut(limit: .seconds(60)).description == "write timed out: the peer read nothing for 60 s")
        #expect(WriteTimedOut(limit: .milliseconds(1500)).description == "write timed out: the peer read nothing for 1500 ms")
    }
}
