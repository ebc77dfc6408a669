import ShelfJSON
import ShelfServer
import ShelfSockets
import ShelfTestSupport
import Testing

/// A second `watch` on a connection whose notifications are still queued (it has not read them yet), and a failed
/// one (protocol/PROTOCOL.md §6). Found by an attack run: a `watch` without `since` dropped every notification the
/// earlier watch still owed (3238 of them in one run), the client's own change's among them.
extension MemoryHeavy {
@Suite struct RewatchTests {
    /// ~10 MB of notifications for a watcher that does not read: about twice what its socket's buffers took in the
    /// attack run, so the rest wait in the server's queue (whose limit is raised so that it is not cut off as a
    /// slow consumer). In MemoryHeavy: the floods slow the shared event loop for the light suites beside them.
    static let floodChanges = 400
    static let bigTitle = String(repeating: "👨‍👩‍👧‍👦", count: 1000)

    static var configuration: ServerConfiguration {
        var configuration = ServerConfiguration(listen: HostPort(host: "127.0.0.1", port: 0))
        configuration.maxOutboundBytes = 64 << 20
        return configuration
    }

    /// `writer` adds `floodChanges` items with big titles, waiting for every reply (so every notification has been
    /// handed to the watchers).
    static func flood(_ writer: LineConnection) async throws {
        for start in stride(from: 0, to: floodChanges, by: 50) {
            var lines = ""
            for n in start..<min(start + 50, floodChanges) {
                lines += #"{"jsonrpc":"2.0","id":\#(n),"method":"add","params":{"title":"\#(bigTitle)"}}"# + "\n"
            }
            try await writer.send(lines)
            for _ in start..<min(start + 50, floodChanges) { _ = try await writer.readJSON() }
        }
    }

    /// Reads lines until the reply with `id`: the revisions of the `changed` notifications before it, and the reply.
    static func notifications(until id: String, on connection: LineConnection) async throws -> ([UInt64], JSONValue) {
        var revisions: [UInt64] = []
        while true {
            let line = try await connection.readJSON()
            if line.member("method") == "changed" {
                revisions.append(try #require(line.member("params", "revision")?.numberValue?.uint64))
                continue
            }
            if line.member("id") == .string(id) { return (revisions, line) }
            Issue.record("unexpected line \(line)")
        }
    }

    @Test("watch again without since: every change the first watch still owed comes before the reply, none twice")
    func rewatchKeepsOwedNotifications() async throws {
        try await withTestServer(configuration: Self.configuration) { server in
            let watcher = try await server.connect()
            let writer = try await server.connect()
            defer { watcher.close(); writer.close() }
            #expect(try await watcher.call(#"{"jsonrpc":"2.0","id":"w1","method":"watch"}"#).member("result", "revision") == 0)
            try await Self.flood(writer)

            try await watcher.send(#"{"jsonrpc":"2.0","id":"w2","method":"watch"}"# + "\n")
            let (owed, reply) = try await Self.notifications(until: "w2", on: watcher)
            #expect(owed.elementsEqual(1...UInt64(Self.floodChanges)), "\(owed.count) of \(Self.floodChanges), first gap after \(Self.firstGap(owed))")
            #expect(reply.member("result", "revision")?.numberValue?.uint64 == UInt64(Self.floodChanges))

            // And the second watch goes on from there.
            #expect(try await writer.call(#"{"jsonrpc":"2.0","id":"last","method":"add","params":{"title":"Last"}}"#).member("result", "revision") == 401)
            let next = try await watcher.readJSON()
            #expect(next.member("params", "revision") == 401)
        }
    }

    @Test("a watcher's own change and a watch after it, pipelined behind a backlog: its notification comes before both replies")
    func ownChangeThenRewatch() async throws {
        try await withTestServer(configuration: Self.configuration) { server in
            let watcher = try await server.connect()
            let writer = try await server.connect()
            defer { watcher.close(); writer.close() }
            #expect(try await watcher.call(#"{"jsonrpc":"2.0","id":"w1","method":"watch"}"#).member("result", "revision") == 0)
            try await Self.flood(writer)

            try await watcher.send(
                #"{"jsonrpc":"2.0","id":"own","method":"add","params":{"title":"mine"}}"# + "\n"
                    + #"{"jsonrpc":"2.0","id":"w2","method":"watch"}"# + "\n")
            let (beforeOwn, own) = try await Self.notifications(until: "own", on: watcher)
            #expect(beforeOwn.elementsEqual(1...UInt64(Self.floodChanges + 1)), "\(beforeOwn.count) notifications, first gap after \(Self.firstGap(beforeOwn))")
            #expect(own.member("result", "revision")?.numberValue?.uint64 == UInt64(Self.floodChanges + 1))
            let rewatched = try await watcher.readJSON()
            #expect(rewatched.member("id") == "w2")
            #expect(rewatched.member("result", "revision")?.numberValue?.uint64 == UInt64(Self.floodChanges + 1))
        }
    }

    @Test("a watch that fails with 6 compacted comes after what the earlier watch owes up to its data.revision")
    func failedRewatchFollowsOwedNotifications() async throws {
        var configuration = Self.configuration
        configuration.historyLimit = 5
        try await withTestServer(configuration: configuration) { server in
            let watcher = try await server.connect()
            let writer = try await server.connect()
            defer { watcher.close(); writer.close() }
            #expect(try await watcher.call(#"{"jsonrpc":"2.0","id":"w1","method":"watch"}"#).member("result", "revision") == 0)
            try await Self.flood(writer)

            try await watcher.send(#"{"jsonrpc":"2.0","id":"w2","method":"watch","params":{"since":999999}}"# + "\n"
                + #"{"jsonrpc":"2.0","id":"p","method":"ping"}"# + "\n")
            let (owed, failed) = try await Self.notifications(until: "w2", on: watcher)
            #expect(failed.member("error", "code") == 6)
            #expect(failed.member("error", "data", "revision")?.numberValue?.uint64 == UInt64(Self.floodChanges))
            #expect(owed.elementsEqual(1...UInt64(Self.floodChanges)), "\(owed.count) notifications before the error")
            #expect(try await watcher.readJSON().member("result") == "pong", "nothing older after the error")
        }
    }

    static func firstGap(_ revisions: [UInt64]) -> UInt64 {
        var expected: UInt64 = 1
        for revision in revisions {
            if revision != expected { return expected - 1 }
            expected += 1
        }
        return expected - 1
    }
}
}
