import ShelfCore
import ShelfJSON
import ShelfWire
import Testing

/// `expect` on mutations (shared/design.md, invariant 5): applied only at exactly that revision, otherwise
/// `conflict` with the current revision and nothing written.
@Suite struct ConditionalWriteTests {
    private static func conflict(_ id: String, current: Int) -> String {
        ExpectedLine.error(
            id, code: 3, message: "The list changed (now at revision \(current)); reload and try again", reason: "conflict",
            extra: #""revision":\#(current)"#)
    }

    @Test("a mutation whose expect equals the current revision is applied")
    func matchingExpectApplies() async throws {
        try await withTestServer { server in
            let connection = try await server.connect()
            let id = ExpectedLine.wireID(1)
            #expect(try await connection.exchange(#"{"id":1,"method":"add","params":{"title":"Dune","expect":0}}"#)
                == ExpectedLine.item("1", revision: 1, item: ExpectedLine.itemJSON(1, "Dune", revision: 1)))
            #expect(try await connection.exchange(#"{"id":2,"method":"rename","params":{"id":"\#(id)","title":"Emma","expect":1}}"#)
                == ExpectedLine.item("2", revision: 2, item: ExpectedLine.itemJSON(1, "Emma", revision: 2)))
            #expect(try await connection.exchange(#"{"id":3,"method":"toggle","params":{"id":"\#(id)","expect":2}}"#)
                == ExpectedLine.item("3", revision: 3, item: ExpectedLine.itemJSON(1, "Emma", read: true, revision: 3, readTick: 2)))
            #expect(try await connection.exchange(#"{"id":4,"method":"mark","params":{"id":"\#(id)","read":false,"expect":3}}"#)
                == ExpectedLine.item("4", revision: 4, item: ExpectedLine.itemJSON(1, "Emma", revision: 4)))
            #expect(try await connection.exchange(#"{"id":5,"method":"remove","params":{"id":"\#(id)","expect":4}}"#)
                == ExpectedLine.result("5", #"{"revision":5,"id":"\#(id)"}"#))
            // expect: null means "no condition".
            #expect(try await connection.exchange(#"{"id":6,"method":"add","params":{"title":"Odyssey","expect":null}}"#)
                == ExpectedLine.item("6", revision: 6, item: ExpectedLine.itemJSON(2, "Odyssey", revision: 6, tick: 3)))
            connection.close()
        }
    }

    @Test("a stale expect gets code 3 with the current revision, and nothing is written")
    func staleExpectConflicts() async throws {
        let store = MemoryListStore(identity: TestServer.listID)
        try await withTestServer(store: store) { server in
            let connection = try await server.connect()
            let id = ExpectedLine.wireID(1)
            try await connection.send(
                #"{"id":1,"method":"add","params":{"title":"Dune"}}"# + "\n" + #"{"id":2,"method":"add","params":{"title":"Emma"}}"# + "\n")
            _ = try await connection.nextLines(2)
            let writes = store.writeAttempts
            let requests = [
                #"{"id":3,"method":"add","params":{"title":"Odyssey","expect":1}}"#,
                #"{"id":4,"method":"rename","params":{"id":"\#(id)","title":"X","expect":0}}"#,
                #"{"id":5,"method":"toggle","params":{"id":"\#(id)","expect":3}}"#,
                #"{"id":6,"method":"mark","params":{"id":"\#(id)","read":true,"expect":18446744073709551615}}"#,
                #"{"id":7,"method":"remove","params":{"id":"\#(id)","expect":1}}"#,
            ]
            for (offset, request) in requests.enumerated() {
                #expect(try await connection.exchange(request) == Self.conflict("\(offset + 3)", current: 2))
            }
            #expect(store.writeAttempts == writes)
            #expect(try await connection.exchange(#"{"id":8,"method":"list"}"#) == ExpectedLine.list(
                "8", revision: 2, items: [ExpectedLine.itemJSON(1, "Dune", revision: 1), ExpectedLine.itemJSON(2, "Emma", revision: 2)]))
            // The refused add used up no id: the next add gets the third one.
            #expect(try await connection.exchange(#"{"id":9,"method":"add","params":{"title":"Odyssey","expect":2}}"#)
                == ExpectedLine.item("9", revision: 3, item: ExpectedLine.itemJSON(3, "Odyssey", revision: 3)))
            connection.close()
        }
    }

    @Test("expect is checked before the item exists: a stale expect on an unknown id is a conflict")
    func conflictBeforeNotFound() async throws {
        try await withTestServer { server in
            let connection = try await server.connect()
            #expect(try await connection.exchange(#"{"id":1,"method":"toggle","params":{"id":"\#(ExpectedLine.wireID(9))","expect":5}}"#)
                == Self.conflict("1", current: 0))
            connection.close()
        }
    }

    @Test("pipelined conditional writes see the revisions of the requests before them")
    func pipelinedExpects() async throws {
        try await withTestServer { server in
            let connection = try await server.connect()
            try await connection.send([
                #"{"id":1,"method":"add","params":{"title":"A","expect":0}}"#,
                #"{"id":2,"method":"add","params":{"title":"B","expect":1}}"#,
                #"{"id":3,"method":"add","params":{"title":"C","expect":1}}"#,
                #"{"id":4,"method":"add","params":{"title":"D","expect":2}}"#,
            ].joined(separator: "\n") + "\n")
            #expect(try await connection.nextLines(4) == [
                ExpectedLine.item("1", revision: 1, item: ExpectedLine.itemJSON(1, "A", revision: 1)),
                ExpectedLine.item("2", revision: 2, item: ExpectedLine.itemJSON(2, "B", revision: 2)),
                Self.conflict("3", current: 2),
                ExpectedLine.item("4", revision: 3, item: ExpectedLine.itemJSON(3, "D", revision: 3)),
            ])
            connection.close()
        }
    }

    @Test("clients racing read-modify-write on one item: one wins per revision, the rest conflict, retries apply all")
    func racingReadModifyWrite() async throws {
        let clients = 12
        try await withTestServer { server in
            let setup = try await server.connect()
            let id = ExpectedLine.wireID(1)
            #expect(try await setup.exchange(#"{"id":1,"method":"add","params":{"title":"0"}}"#)
                == ExpectedLine.item("1", revision: 1, item: ExpectedLine.itemJSON(1, "0", revision: 1)))

            // Round 1, deterministic: everyone reads revision 1 first, then everyone writes with expect 1.
            var connections: [LineConnection] = []
            for _ in 0..<clients {
                let connection = try await server.connect()
                #expect(try await connection.exchange(#"{"id":1,"method":"get","params":{"id":"\#(id)"}}"#)
                    == ExpectedLine.item("1", revision: 1, item: ExpectedLine.itemJSON(1, "0", revision: 1)))
                connections.append(connection)
            }
            let firstRound = try await withThrowingTaskGroup(of: JSONValue.self) { group in
                for connection in connections {
                    group.addTask {
                        try await connection.call(#"{"id":2,"method":"rename","params":{"id":"\#(id)","title":"1","expect":1}}"#)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let winners = firstRound.filter { $0.member("result") != nil }
            let losers = firstRound.filter { $0.member("error") != nil }
            #expect(winners.count == 1)
            #expect(winners.first?.integer("result", "revision") == 2)
            #expect(losers.count == clients - 1)
            for loser in losers {
                #expect(loser.integer("error", "code") == 3)
                #expect(loser.integer("error", "data", "revision") == 2)
            }

            // Then every loser retries (read, increment, write with expect) until it wins.
            let revisions = try await withThrowingTaskGroup(of: Int.self) { group in
                for (index, reply) in firstRound.enumerated() where reply.member("error") != nil {
                    let connection = connections[index]
                    group.addTask {
                        for attempt in 0..<1_000 {
                            let read = try await connection.call(#"{"id":3,"method":"get","params":{"id":"\#(id)"}}"#)
                            let revision = try #require(read.integer("result", "revision"))
                            let count = try #require(read.member("result", "item", "title")?.stringValue.flatMap { Int($0) })
                            let write = try await connection.call(
                                #"{"id":\#(attempt + 4),"method":"rename","params":{"id":"\#(id)","title":"\#(count + 1)","expect":\#(revision)}}"#)
                            if let won = write.integer("result", "revision") {
                                #expect(won == revision + 1)
                                #expect(write.member("result", "item", "title") == .string("\(count + 1)"))
                                return won
                            }
                            #expect(write.integer("error", "code") == 3)
                            let current = try #require(write.integer("error", "data", "revision"))
                            #expect(current > revision)
                        }
                        Issue.record("a client never won")
                        return -1
                    }
                }
                return try await group.reduce(into: [2]) { $0.append($1) }
            }
            #expect(revisions.sorted() == Array(2...clients + 1))
            #expect(try await setup.exchange(#"{"id":2,"method":"get","params":{"id":"\#(id)"}}"#)
                == ExpectedLine.item("2", revision: clients + 1, item: ExpectedLine.itemJSON(1, "\(clients)", revision: clients + 1)))
            for connection in connections { connection.close() }
            setup.close()
        }
    }
}
