import ShelfServer
import ShelfSockets
import ShelfJSON
import ShelfWire
import Testing
import ShelfTestSupport

extension MemoryHeavy {
    /// Several connections on one server share one list, and one misbehaving client harms no one else
    /// (shared/design.md, invariant 7).
    @Suite struct ConcurrentClientsTests {
        @Test("a change made by one client is seen by another at the same revision")
        func clientsSeeEachOther() async throws {
            try await withTestServer { server in
                let a = try await server.connect()
                let b = try await server.connect()
                let dune = ExpectedLine.itemJSON(1, "Dune", revision: 1)
                #expect(try await a.exchange(#"{"id":1,"method":"add","params":{"title":"Dune"}}"#) == ExpectedLine.item("1", revision: 1, item: dune))
                #expect(try await b.exchange(#"{"id":1,"method":"list"}"#) == ExpectedLine.list("1", revision: 1, items: [dune]))
                let readDune = ExpectedLine.itemJSON(1, "Dune", read: true, revision: 2, readTick: 2)
                #expect(try await b.exchange(#"{"id":2,"method":"mark","params":{"id":"\#(ExpectedLine.wireID(1))","read":true}}"#)
                    == ExpectedLine.item("2", revision: 2, item: readDune))
                #expect(try await a.exchange(#"{"id":2,"method":"get","params":{"id":"\#(ExpectedLine.wireID(1))"}}"#)
                    == ExpectedLine.item("2", revision: 2, item: readDune))
                #expect(try await a.exchange(#"{"id":3,"method":"list","params":{"filter":"unread"}}"#) == ExpectedLine.list("3", revision: 2, items: []))
                a.close()
                b.close()
            }
        }

        @Test("50 clients adding at once get revisions exactly 1...200, each once, and the list holds every add")
        func concurrentAdds() async throws {
            let clients = 50
            let addsPerClient = 4
            try await withTestServer { server in
                let replies = try await withThrowingTaskGroup(of: [(title: String, reply: JSONValue)].self) { group in
                    for client in 0..<clients {
                        group.addTask {
                            let connection = try await server.connect()
                            defer { connection.close() }
                            var replies: [(title: String, reply: JSONValue)] = []
                            for add in 0..<addsPerClient {
                                let title = "c\(client)-\(add)"
                                let reply = try await connection.call(#"{"id":\#(add),"method":"add","params":{"title":"\#(title)"}}"#)
                                replies.append((title, reply))
                            }
                            return replies
                        }
                    }
                    var all: [(title: String, reply: JSONValue)] = []
                    for try await replies in group { all += replies }
                    return all
                }
                let total = clients * addsPerClient
                let revisions = replies.compactMap { $0.reply.integer("result", "revision") }
                #expect(revisions.sorted() == Array(1...total))
                // Titles by revision, from the replies: what the list must hold, in that order.
                var titleAt = [String](repeating: "", count: total + 1)
                for (title, reply) in replies {
                    #expect(reply.member("result", "item", "title") == .string(title))
                    if let revision = reply.integer("result", "revision") { titleAt[revision] = title }
                }
                let reader = try await server.connect()
                let expected = ExpectedLine.list("1", revision: total, items: (1...total).map { ExpectedLine.itemJSON($0, titleAt[$0], revision: $0) })
                expectSameLines([try await reader.exchange(#"{"id":1,"method":"list"}"#)], [expected])
                reader.close()
            }
        }

        @Test("a client that vanishes while big replies are owed to it leaves the server and other clients unaffected")
        func clientVanishesMidReply() async throws {
            try await withRecordingTestServer { server, log in
                let count = 1_000
                let title = { (n: Int) in "item \(n)" + String(repeating: " long title", count: 50) }
                let setup = try await server.connect()
                try await setup.send((1...count).map { #"{"method":"add","params":{"title":"\#(title($0))"}}"# }.joined(separator: "\n") + "\n")
                let items = (1...count).map { ExpectedLine.itemJSON($0, title($0), revision: $0) }
                let fullList = ExpectedLine.list("1", revision: count, items: items)
                expectSameLines([try await setup.exchange(#"{"id":1,"method":"list"}"#)], [fullList])

                let bystander = try await server.connect()
                #expect(try await bystander.exchange(#"{"id":1,"method":"ping"}"#) == ExpectedLine.pong("1"))

                // Ten list replies of ~640 KB each: far more than the socket buffers hold, so writing them must fail.
                let vanishing = try await server.connect()
                try await vanishing.send(String(repeating: #"{"id":1,"method":"list"}"# + "\n", count: 10))
                vanishing.close()
                try await waitUntil { log.count(containing: "closed (") == 1 }

                expectSameLines([try await bystander.exchange(#"{"id":1,"method":"list"}"#)], [fullList])
                #expect(try await bystander.exchange(#"{"id":2,"method":"add","params":{"title":"after"}}"#)
                    == ExpectedLine.item("2", revision: count + 1, item: ExpectedLine.itemJSON(count + 1, "after", revision: count + 1)))
                let newcomer = try await server.connect()
                #expect(try await newcomer.exchange(#"{"id":1,"method":"hello"}"#) == ExpectedLine.hello("1", revision: count + 1))
                setup.close()
                bystander.close()
                newcomer.close()
            }
        }

        @Test("a client that sends many adds and closes without reading leaves a consistent list behind")
        func clientClosesWithoutReading() async throws {
            var configuration = ServerConfiguration(listen: HostPort(host: "127.0.0.1", port: 0))
            configuration.logsConnections = true
            try await withRecordingTestServer(configuration: configuration) { server, log in
                let bystander = try await server.connect()
                #expect(try await bystander.exchange(#"{"id":1,"method":"ping"}"#) == ExpectedLine.pong("1"))

                let vanishing = try await server.connect()
                try await vanishing.send((1...300).map { #"{"id":\#($0),"method":"add","params":{"title":"v\#($0)"}}"# }.joined(separator: "\n") + "\n")
                vanishing.close()
                // The session has ended once it logs so; every request it read has then been answered (or dropped).
                try await waitUntil { log.count(containing: " closed") == 1 }

                // Requests are applied in order, so whatever was read before the connection died is a prefix.
                let reply = try await bystander.call(#"{"id":2,"method":"list"}"#)
                let revision = try #require(reply.integer("result", "revision"))
                #expect((0...300).contains(revision))
                let expected = ExpectedLine.list("2", revision: revision, items: revision == 0 ? [] : (1...revision).map {
                    ExpectedLine.itemJSON($0, "v\($0)", revision: $0)
                })
                expectSameLines([String(decoding: JSONWriter.encode(reply), as: UTF8.self)], [expected])
                #expect(try await bystander.exchange(#"{"id":3,"method":"add","params":{"title":"after"}}"#)
                    == ExpectedLine.item("3", revision: revision + 1, item: ExpectedLine.itemJSON(revision + 1, "after", revision: revision + 1)))
                bystander.close()
            }
        }

        @Test("a client that stops reading does not block other clients")
        func stalledReaderDoesNotBlockOthers() async throws {
            try await withTestServer { server in
                let setup = try await server.connect()
                let title = String(repeating: "w", count: 900)
                try await setup.send(String(repeating: #"{"method":"add","params":{"title":"\#(title)"}}"# + "\n", count: 500))
                #expect(try await setup.exchange(#"{"id":1,"method":"hello"}"#) == ExpectedLine.hello("1", revision: 500))

                // ~500 KB per reply, never read: this session's writer is stuck on a full socket buffer.
                let stalled = try await server.connect()
                try await stalled.send(String(repeating: #"{"id":1,"method":"list"}"# + "\n", count: 20))

                let other = try await server.connect()
                #expect(try await other.exchange(#"{"id":1,"method":"add","params":{"title":"still works"}}"#)
                    == ExpectedLine.item("1", revision: 501, item: ExpectedLine.itemJSON(501, "still works", revision: 501)))
                #expect(try await other.exchange(#"{"id":2,"method":"ping"}"#) == ExpectedLine.pong("2"))
                stalled.close()
                setup.close()
                other.close()
            }
        }
    }
}
