import ShelfJSON
import ShelfServer
import ShelfSockets
import Testing
import ShelfTestSupport

/// Per connection, replies come back in request order and reads see the connection's earlier writes
/// (shared/design.md, invariant 7).
@Suite struct PipeliningTests {
    /// Requests 1...`count`: ids divisible by `listEvery` list, the others add "p<id>".
    private static func interleaved(_ count: Int, listEvery: Int = 2) -> String {
        (1...count).map { id in
            id % listEvery != 0 ? #"{"id":\#(id),"method":"add","params":{"title":"p\#(id)"}}"# : #"{"id":\#(id),"method":"list"}"#
        }.joined(separator: "\n") + "\n"
    }

    /// The exact replies to `interleaved(count, listEvery:)` on an empty list.
    private static func interleavedReplies(_ count: Int, listEvery: Int = 2) -> [String] {
        var items: [String] = []
        var replies: [String] = []
        for id in 1...count {
            if id % listEvery != 0 {
                let n = items.count + 1
                let item = ExpectedLine.itemJSON(n, "p\(id)", revision: n)
                items.append(item)
                replies.append(ExpectedLine.item("\(id)", revision: n, item: item))
            } else {
                replies.append(ExpectedLine.list("\(id)", revision: items.count, items: items))
            }
        }
        return replies
    }

    @Test("200 requests in one write are answered in order, and each list sees every earlier add")
    func twoHundredInOneWrite() async throws {
        try await withTestServer { server in
            let connection = try await server.connect()
            try await connection.send(Self.interleaved(200))
            expectSameLines(try await connection.nextLines(200), Self.interleavedReplies(200))
            connection.close()
        }
    }

    @Test("with a pending-request window of 2, 400 pipelined requests are all answered in order")
    func smallWindow() async throws {
        let configuration = ServerConfiguration(listen: HostPort(host: "127.0.0.1", port: 0), maxPendingRequests: 2)
        try await withTestServer(configuration: configuration) { server in
            let connection = try await server.connect()
            try await connection.send(Self.interleaved(400))
            expectSameLines(try await connection.nextLines(400), Self.interleavedReplies(400))
            connection.close()
        }
    }

    @Test("with a window of 3 and a held save, ten adds sent at once are all answered in order (a run never needs more slots than the window)")
    func runLongerThanTheWindow() async throws {
        let store = GatedListStore()
        let configuration = ServerConfiguration(listen: HostPort(host: "127.0.0.1", port: 0), maxPendingRequests: 3)
        try await withTestServer(store: store, configuration: configuration) { server in
            let connection = try await server.connect()
            // The first add's save is held, so the writer is busy and the ten adds take the queued path.
            try await connection.send(#"{"id":0,"method":"add","params":{"title":"first"}}"# + "\n")
            try await waitUntil { store.enqueuedCount == 1 }
            try await connection.send((1...10).map { #"{"id":\#($0),"method":"add","params":{"title":"b\#($0)"}}"# }
                .joined(separator: "\n") + "\n")
            store.open()
            let replies = try await connection.nextLines(11)
            #expect(replies.map { (try? JSONParser.parse(Array($0.utf8)))?.integer("id") } == (0...10).map { Int($0) })
            #expect(replies.allSatisfy { !$0.contains("error") })
            connection.close()
        }
    }

    @Test("a list pipelined behind an add waits for the add's save, while other clients still see the old list")
    func readYourWritesWaitsForTheSave() async throws {
        let store = GatedListStore()
        try await withTestServer(store: store) { server in
            let writer = try await server.connect()
            try await writer.send(
                #"{"id":1,"method":"add","params":{"title":"Dune"}}"# + "\n" + #"{"id":2,"method":"list"}"# + "\n")
            try await waitUntil { store.enqueuedCount == 1 }
            // The save is held: nothing is published, so another connection sees the list as it was.
            let other = try await server.connect()
            #expect(try await other.exchange(#"{"id":1,"method":"list"}"#) == ExpectedLine.list("1", revision: 0, items: []))
            store.open()
            let dune = ExpectedLine.itemJSON(1, "Dune", revision: 1)
            #expect(try await writer.nextLines(2) == [
                ExpectedLine.item("1", revision: 1, item: dune),
                ExpectedLine.list("2", revision: 1, items: [dune]),
            ])
            #expect(try await other.exchange(#"{"id":2,"method":"list"}"#) == ExpectedLine.list("2", revision: 1, items: [dune]))
            writer.close()
            other.close()
        }
    }

    @Test("a fast read queued behind a held save is answered after it, not before")
    func orderIsKeptBehindASlowSave() async throws {
        let store = GatedListStore()
        try await withTestServer(store: store) { server in
            let connection = try await server.connect()
            try await connection.send(
                #"{"id":1,"method":"add","params":{"title":"Dune"}}"# + "\n" + #"{"id":2,"method":"ping"}"# + "\n"
                    + #"{"id":3,"method":"add","params":{"title":" "}}"# + "\n")
            try await waitUntil { store.enqueuedCount == 1 }
            store.open()
            #expect(try await connection.nextLines(3) == [
                ExpectedLine.item("1", revision: 1, item: ExpectedLine.itemJSON(1, "Dune", revision: 1)),
                ExpectedLine.pong("2"),
                ExpectedLine.error("3", code: 1, message: "Enter a title", reason: "invalid_title"),
            ])
            connection.close()
        }
    }

    @Test("a client that writes a large pipeline while reading concurrently gets every reply")
    func largePipelineWithConcurrentReading() async throws {
        try await withTestServer { server in
            let connection = try await server.connect()
            let count = 3_000
            let requests = Self.interleaved(count, listEvery: 1_000)
            // About 1 MB of replies to 160 KB of requests: the client reads while it writes, as a real client must.
            async let sent: Void = connection.send(requests)
            let replies = try await connection.nextLines(count)
            try await sent
            expectSameLines(replies, Self.interleavedReplies(count, listEvery: 1_000))
            connection.close()
        }
    }

    @Test("a list reply larger than the socket takes at once arrives whole, before the reply after it")
    func listLargerThanTheSocketBuffer() async throws {
        try await withTestServer { server in
            let writer = try await server.connect()
            let count = 12_000
            let padding = String(repeating: "x", count: 980)
            let adds = (1...count).map { #"{"id":\#($0),"method":"add","params":{"title":"\#($0) \#(padding)"}}"# }
            async let sent: Void = writer.send(adds.joined(separator: "\n") + "\n")
            let addReplies = try await writer.nextLines(count)
            try await sent
            #expect(addReplies.count == count)
            writer.close()
            // About 13 MB in one line, more than the kernel's largest socket buffers (tcp_wmem and tcp_rmem, 4 and 6 MiB
            // by default). The client takes one read of it, so the server's first send has begun. Then it reads nothing
            // until another connection's ping is answered: the event loop answers that only after the send, which has
            // stopped on a full socket by then. The rest goes out from the writer.
            let reader = try await server.connect()
            try await reader.send(#"{"id":"big","method":"list"}"# + "\n" + #"{"id":"after","method":"ping"}"# + "\n")
            try await reader.awaitSomeBytes()
            let other = try await server.connect()
            #expect(try await other.call(#"{"id":1,"method":"ping"}"#).member("result") == .string("pong"))
            other.close()
            let list = try await reader.readJSON()
            let items = list.member("result", "items")?.arrayValue ?? []
            #expect(list.member("id") == .string("big"))
            #expect(items.count == count)
            let wrong = items.indices.filter { items[$0].member("title") != .string("\($0 + 1) \(padding)") }
            #expect(wrong.first == nil, "\(wrong.count) items with the wrong title, from index \(wrong.first ?? 0)")
            let pong = try await reader.readJSON()
            #expect(pong.member("id") == .string("after"))
            #expect(pong.member("result") == .string("pong"))
            reader.close()
        }
    }
}
