import Foundation
import ShelfCore
import ShelfJSON
@testable import ShelfServer
import ShelfSockets
import ShelfTestSupport
import Testing

/// Defects a review of the serving room's redesign found, each with the input that showed it.
@Suite struct ServingReviewTests {
    /// Adds items 1...`count` from `connection`, one at a time, each with a 10,000-character note (a `changed` line
    /// or a `list` entry of some 10 KB).
    private static func addItemsWithNotes(_ count: Int, on connection: LineConnection) async throws {
        let note = String(repeating: "n", count: 10_000)
        for n in 1...count {
            _ = try await connection.call(#"{"id":\#(n),"method":"add","params":{"title":"t\#(n)","note":"\#(note)"}}"#)
        }
    }

    /// Whether every session of `server` has a reader that has returned (it read its peer's end of stream).
    private static func readersEnded(_ server: Server) async -> Bool {
        await Task { @ServingLoop in
            !server.sessions.isEmpty && server.sessions.values.allSatisfy(\.readerEnded)
        }.value
    }

    /// A connection closed at its auth deadline with replies it never read must end (its drain waiter resumed):
    /// it kept its session and the memory of its replies for ever.
    @Test("an unauthenticated peer that half-closes without reading, then passes its auth deadline, still ends")
    func unauthenticatedDrainEnds() async throws {
        var configuration = ServerConfiguration(listen: HostPort(host: "127.0.0.1", port: 0))
        configuration.token = "s3cret-token-0123456789"
        configuration.authTimeout = .seconds(2)
        configuration.maxOutboundBytes = 64 << 20
        let clock = ManualClock()
        let server = try await TestServer.start(configuration: configuration, clock: clock)
        let peer = try await server.connect()
        defer { peer.close() }
        // 6,000 refusals echoing a 3,900-byte id: ~24 MB, more than the loopback buffers hold.
        let id = String(repeating: "x", count: 3900)
        let line = Array((#"{"jsonrpc":"2.0","id":"\#(id)","method":"list"}"# + "\n").utf8)
        var bytes: [UInt8] = []
        for _ in 0..<6000 { bytes += line }
        try await peer.connection.write(bytes)
        peer.connection.shutdownWrite()
        // Until the server has read everything: the session's reader has returned at the end of the stream.
        try await withDeadline {
            while !(await Self.readersEnded(server.server)) { await Task.yield() }
        }
        #expect(server.server.memory.heldBytes > 0, "replies are held unsent")
        clock.advance(by: .seconds(2))      // the auth deadline: closeUnauthenticated, not idle
        clock.advance(by: .seconds(61))     // and the write deadline, for good measure
        let ended: Void? = try await result(within: .seconds(30)) {
            try await waitUntil { server.server.memory.heldBytes == 0 }
        }
        #expect(ended != nil, "the session never ended: \(server.server.memory.heldBytes) bytes still charged")
        let stopped: Void? = try await result(within: .seconds(10)) { await server.stop() }
        #expect(stopped != nil, "shutdown hung on the stuck session")
    }

    /// A nonisolated async function awaited under a global-executor preference runs off the loop, where the
    /// closure given to `withTaskExecutorPreference` itself would run isolated to the loop (a large `list` was
    /// encoded on the loop, holding every connection).
    @Test("work handed to the global executor from the serving loop runs off the loop thread")
    func workOffTheLoop() async {
        #expect(await Self.runsOnLoop() == false)
    }

    @ServingLoop private static func runsOnLoop() async -> Bool {
        await withTaskExecutorPreference(globalConcurrentExecutor) { await Self.where_() }
    }

    private nonisolated static func where_() async -> Bool {
        Reactor.shared.executor.serial.isIsolatingCurrentContext() == true
    }

    /// 150 items with 10,000-character notes: a `list` of them (about 1.5 MB) is past a 1 MiB ceiling.
    private static func addLargeItems(on connection: LineConnection) async throws {
        let note = String(repeating: "n", count: 10_000)
        let adds = (1...150).map { #"{"jsonrpc":"2.0","id":\#($0),"method":"add","params":{"title":"T\#($0)","note":"\#(note)"}}"# }
        try await connection.send(adds.joined(separator: "\n") + "\n")
        for _ in 1...150 {
            let line = try #require(try await connection.readLine())
            #expect(line.contains("\"result\""), "\(line.prefix(200))")
        }
    }

    /// In a batch that made a change, a `list` the memory ceiling refuses is answered with -32600, not left out
    /// (its part was filled with nothing first, and the refusal's fill was ignored).
    @Test("a batch that made a change and then hit the memory ceiling answers the refused list with -32600")
    func batchOverCeilingAnswersTheRefusal() async throws {
        var configuration = ServerConfiguration(listen: HostPort(host: "127.0.0.1", port: 0))
        configuration.maxMemoryBytes = 1 << 20
        try await withTestServer(configuration: configuration) { server in
            let setup = try await server.connect()
            defer { setup.close() }
            try await Self.addLargeItems(on: setup)
            let batch = try await setup.call(#"[{"jsonrpc":"2.0","id":"s","method":"add","params":{"title":"Small"}},{"jsonrpc":"2.0","id":"l","method":"list"}]"#)
            guard case .array(let parts) = batch else {
                Issue.record("not a batch reply: \(batch)")
                return
            }
            #expect(parts.count == 2, "the refused list got no response: \(parts.count) part(s)")
            #expect(parts.first?.member("result", "revision") == .number(JSONNumber(151)))
            #expect(parts.last?.member("error", "code") == .number(JSONNumber(-32600)))
        }
    }

    /// A watch's backlog is charged within the server's memory ceiling, as a live change is: one past it is
    /// refused (`6 compacted`), not queued past the ceiling.
    @Test("a watch backlog larger than the memory ceiling is refused, not queued past the ceiling")
    func backlogKeepsTheCeiling() async throws {
        var configuration = ServerConfiguration(listen: HostPort(host: "127.0.0.1", port: 0))
        configuration.maxMemoryBytes = 1 << 20
        try await withTestServer(configuration: configuration) { server in
            let setup = try await server.connect()
            defer { setup.close() }
            try await Self.addLargeItems(on: setup)
            let watcher = try await server.connect()
            defer { watcher.close() }
            let reply = try await watcher.call(#"{"jsonrpc":"2.0","id":1,"method":"watch","params":{"since":0}}"#)
            #expect(reply.member("error", "code") == .number(JSONNumber(6)), "\(reply)")
            #expect(server.server.memory.heldBytes <= 1 << 20)
            #expect(try await watcher.call(#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#).member("result") == "pong")
        }
    }

    /// The write deadline is for a peer that reads nothing: one that keeps reading, always behind, is not cut off
    /// (it was armed at the first stall and kept until nothing was unsent).
    @Test("a peer that keeps reading is not closed by the write deadline")
    func writeDeadlineFollowsProgress() async throws {
        var configuration = ServerConfiguration(listen: HostPort(host: "127.0.0.1", port: 0))
        configuration.writeTimeout = .milliseconds(300)
        let clock = ManualClock()
        try await withRecordingTestServer(configuration: configuration, clock: clock, seconds: 40) { server, recorder in
            let setup = try await server.connect()
            defer { setup.close() }
            let title = String(repeating: "w", count: 1000)
            try await setup.send((1...600).map { #"{"id":\#($0),"method":"add","params":{"title":"\#(title)"}}"# + "\n" }.joined())
            for _ in 1...600 { _ = try await setup.readLine() }
            let slow = try await server.connect()
            defer { slow.close() }
            try await slow.send((1...40).map { #"{"id":\#($0),"method":"list"}"# }.joined(separator: "\n") + "\n")
            try await clock.waitForTimers(1)
            var read = 0
            for _ in 0..<4 {
                // Read ~2.7 MB, then let 200 ms pass: never 300 ms without reading. Reading opens the window, so the
                // server writes more; the clock moves on once it has, shown by the deadline armed before the read
                // being gone (cancelled by the progress; a later stall arms a new one). Where the deadline does not
                // follow progress it stays, and after the bounded wait the second advance passes it.
                let before = clock.scheduledCount
                for _ in 0..<4 {
                    guard try await slow.readLine() != nil else { break }
                    read += 1
                }
                _ = try await result(within: .seconds(5)) {
                    try await ShelfTestSupport.waitUntil { clock.pendingIDs.allSatisfy { $0 > before } }
                }
                clock.advance(by: .milliseconds(200))
            }
            #expect(recorder.count(containing: "write timed out") == 0, "closed after \(read) replies read")
        }
    }

    /// A change's answer, encoded only when it is written, held no budgeted bytes until then, and its slot left the
    /// request window once the list answered: a peer that pipelined changes to a store that saves later (the file
    /// store) and read nothing had every request read (263 MB of replies held for 200,000 renames of 1 KB titles).
    @Test("a peer that pipelines renames to the file store and reads nothing is read only as far as its reply budget")
    func unreadChangeRepliesStopTheReader() async throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "shelf-unread-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = FileListStore(path: directory.appending(path: "reading-list.json").path)
        var configuration = ServerConfiguration(listen: HostPort(host: "127.0.0.1", port: 0))
        configuration.maxOutboundBytes = 1 << 20
        try await withTestServer(store: store, configuration: configuration, seconds: 120) { server in
            let setup = try await server.connect()
            defer { setup.close() }
            let added = try await setup.call(#"{"id":0,"method":"add","params":{"title":"first"}}"#)
            let id = try #require(added.member("result", "item", "id")?.stringValue)
            let peer = try await server.connect()
            defer { peer.close() }
            try peer.connection.shrinkReceiveBuffer()
            let padding = String(repeating: "p", count: 900)
            let requests = 20_000
            var bytes: [UInt8] = []
            for n in 1...requests {
                bytes += Array((#"{"id":\#(n),"method":"rename","params":{"id":"\#(id)","title":"\#(n) \#(padding)"}}"# + "\n").utf8)
            }
            let bytesToSend = bytes
            // Never completes once the server stops reading; ended by closing the connection.
            let sending = Task { try? await peer.connection.write(bytesToSend) }
            defer { sending.cancel() }
            // The reader parks for room once the answers held pass the budget (without the bound it never does).
            let serving = server.server
            try await withDeadline {
                while !(await Task { @ServingLoop in serving.sessions.values.contains { $0.roomWaiter != nil } }.value) {
                    await Task.yield()
                }
            }
            let revision = try #require(
                try await setup.call(#"{"id":1,"method":"list","params":{"limit":1}}"#).integer("result", "revision"))
            // 1 MiB of answers held, and what the socket buffers hold of 1 KB replies; all 20,000 without the bound.
            #expect(revision < requests / 2, "the server read \(revision) of \(requests) renames from a peer that reads nothing")
        }
    }

    /// A re-watch whose backlog the memory ceiling refused removed the connection from the feed, ending the watch it
    /// already had (PROTOCOL.md §6: a failed `watch` leaves an earlier watch in place).
    @Test("a re-watch refused by the memory ceiling keeps the connection's earlier watch")
    func refusedRewatchKeepsTheWatch() async throws {
        var configuration = ServerConfiguration(listen: HostPort(host: "127.0.0.1", port: 0))
        configuration.maxMemoryBytes = 1 << 20
        try await withTestServer(configuration: configuration) { server in
            let writer = try await server.connect()
            defer { writer.close() }
            try await Self.addItemsWithNotes(150, on: writer)
            let watcher = try await server.connect()
            defer { watcher.close() }
            #expect(try await watcher.call(#"{"id":"w1","method":"watch"}"#).member("result", "revision") == 150)
            // 150 changes of 10 KB: 1.5 MB of backlog, past the 1 MiB ceiling.
            let refused = try await watcher.call(#"{"id":"w2","method":"watch","params":{"since":0}}"#)
            #expect(refused.member("error", "code") == 6)
            #expect(try await writer.call(#"{"id":"last","method":"add","params":{"title":"after"}}"#).member("result", "revision") == 151)
            let next = try await watcher.readJSON()
            #expect(next.member("method") == "changed" && next.member("params", "revision") == 151)
        }
    }

    /// What the socket has not taken of a reply was counted, but the reply's whole buffer stays until its last byte
    /// is written: peers that asked for a 3 MB `list` and read nothing held 5.6 times the memory ceiling.
    @Test("a large reply partly taken by the socket counts whole against the memory ceiling until it is written")
    func partlyWrittenReplyCountsWhole() async throws {
        try await withTestServer { server in
            let writer = try await server.connect()
            defer { writer.close() }
            let items = 600
            try await Self.addItemsWithNotes(items, on: writer)
            let reader = try await server.connect()
            defer { reader.close() }
            try reader.connection.shrinkReceiveBuffer()
            try await reader.send(#"{"id":1,"method":"list"}"# + "\n")
            // Its first byte has come: the server has written what the socket takes of the 6 MB reply.
            #expect(try await reader.connection.readPrefix(1).count == 1)
            #expect(server.server.memory.heldBytes >= items * 10_000, "\(server.server.memory.heldBytes) bytes counted")
        }
    }
}
