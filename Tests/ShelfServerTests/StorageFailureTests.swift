import ShelfCore
import Testing

/// A store that refuses writes, seen over the wire (shared/design.md, invariant 2): the caller gets code 4, the
/// served list, stored list and revision stay as they were, and later commits work.
@Suite struct StorageFailureTests {
    private static func storageFailed(_ id: String) -> String {
        ExpectedLine.error(id, code: 4, message: "Could not save that change", reason: "storage_failed")
    }

    /// Found by a hostile-input run: thousands of storage_failed replies on a full disk, and nothing in the log.
    @Test("a failed save is logged with its error, how many requests failed, and the revision the list is back at")
    func failedSaveIsLogged() async throws {
        let store = MemoryListStore(identity: TestServer.listID)
        store.failWrites = true
        try await withRecordingTestServer(store: store) { server, log in
            let connection = try await server.connect()
            defer { connection.close() }
            #expect(try await connection.exchange(#"{"id":1,"method":"add","params":{"title":"Dune"}}"#) == Self.storageFailed("1"))
            let lines = log.recorded.filter { $0.hasPrefix("a save failed") }
            #expect(lines.count == 1)
            #expect(lines.first?.hasSuffix("answered storage_failed; the list is back at revision 0") == true, "\(lines)")
            #expect(lines.first?.contains("memory store write") == true, "\(lines)")
        }
    }

    @Test("an add the store refuses gets code 4 and changes nothing")
    func failedAdd() async throws {
        let store = MemoryListStore(identity: TestServer.listID)
        store.failWrites = true
        try await withTestServer(store: store) { server in
            let connection = try await server.connect()
            #expect(try await connection.exchange(#"{"id":1,"method":"add","params":{"title":"Dune"}}"#) == Self.storageFailed("1"))
            #expect(try await connection.exchange(#"{"id":2,"method":"list"}"#) == ExpectedLine.list("2", revision: 0, items: []))
            #expect(try await connection.exchange(#"{"id":3,"method":"hello"}"#) == ExpectedLine.hello("3", revision: 0))
            #expect(store.stored == ListSnapshot())
            #expect(store.writeAttempts == 1)
            connection.close()
        }
    }

    // Observed: the id generator and the clock run when the add is decided, before the save, so the refused add
    // used up id …0001 and the first clock tick; the next add gets …0002 and 03:04:06, but revision 1 (revisions
    // are never skipped, ids need only be unique).
    @Test("after a refused add, the next add works: revision 1, but the second id and clock tick")
    func recoversAfterFailure() async throws {
        let store = MemoryListStore(identity: TestServer.listID)
        store.failWrites = true
        try await withTestServer(store: store) { server in
            let connection = try await server.connect()
            #expect(try await connection.exchange(#"{"id":1,"method":"add","params":{"title":"Dune"}}"#) == Self.storageFailed("1"))
            store.failWrites = false
            let item = ExpectedLine.itemJSON(2, "Dune", revision: 1, tick: 2)
            #expect(try await connection.exchange(#"{"id":2,"method":"add","params":{"title":"Dune"}}"#) == ExpectedLine.item("2", revision: 1, item: item))
            #expect(try await connection.exchange(#"{"id":3,"method":"list"}"#) == ExpectedLine.list("3", revision: 1, items: [item]))
            #expect(store.stored.revision == 1)
            #expect(store.stored.items.items.map(\.id) == [TestServer.id(2)])
            connection.close()
        }
    }

    @Test("pipelined changes while writes fail all get code 4; reads queued after them see the old list")
    func pipelinedFailures() async throws {
        let store = MemoryListStore(identity: TestServer.listID)
        try await withTestServer(store: store) { server in
            let connection = try await server.connect()
            let dune = ExpectedLine.itemJSON(1, "Dune", revision: 1)
            #expect(try await connection.exchange(#"{"id":1,"method":"add","params":{"title":"Dune"}}"#) == ExpectedLine.item("1", revision: 1, item: dune))
            store.failWrites = true
            let id = ExpectedLine.wireID(1)
            try await connection.send([
                #"{"id":2,"method":"toggle","params":{"id":"\#(id)"}}"#,
                #"{"id":3,"method":"add","params":{"title":"Emma"}}"#,
                #"{"id":4,"method":"rename","params":{"id":"\#(id)","title":"Dune Messiah"}}"#,
                #"{"id":5,"method":"list"}"#,
                #"{"id":6,"method":"get","params":{"id":"\#(id)"}}"#,
            ].joined(separator: "\n") + "\n")
            #expect(try await connection.nextLines(5) == [
                Self.storageFailed("2"),
                Self.storageFailed("3"),
                Self.storageFailed("4"),
                ExpectedLine.list("5", revision: 1, items: [dune]),
                ExpectedLine.item("6", revision: 1, item: dune),
            ])
            #expect(store.stored.revision == 1)
            store.failWrites = false
            // Revision 2 was never accepted, so it is handed out now.
            #expect(try await connection.exchange(#"{"id":7,"method":"toggle","params":{"id":"\#(id)","expect":1}}"#)
                == ExpectedLine.item("7", revision: 2, item: ExpectedLine.itemJSON(1, "Dune", read: true, revision: 2, readTick: 4)))
            connection.close()
        }
    }

    @Test("a request that changes nothing succeeds without writing, even while writes fail")
    func noOpWritesNothing() async throws {
        let store = MemoryListStore(identity: TestServer.listID)
        try await withTestServer(store: store) { server in
            let connection = try await server.connect()
            let id = ExpectedLine.wireID(1)
            let dune = ExpectedLine.itemJSON(1, "Dune", revision: 1)
            #expect(try await connection.exchange(#"{"id":1,"method":"add","params":{"title":"Dune"}}"#) == ExpectedLine.item("1", revision: 1, item: dune))
            store.failWrites = true
            #expect(try await connection.exchange(#"{"id":2,"method":"mark","params":{"id":"\#(id)","read":false}}"#)
                == ExpectedLine.item("2", revision: 1, item: dune))
            #expect(try await connection.exchange(#"{"id":3,"method":"rename","params":{"id":"\#(id)","title":" Dune "}}"#)
                == ExpectedLine.item("3", revision: 1, item: dune))
            #expect(store.writeAttempts == 1)
            connection.close()
        }
    }

    @Test("another client never sees a refused change")
    func otherClientSeesNothing() async throws {
        let store = MemoryListStore(identity: TestServer.listID)
        store.failWrites = true
        try await withTestServer(store: store) { server in
            let writer = try await server.connect()
            let reader = try await server.connect()
            #expect(try await writer.exchange(#"{"id":1,"method":"add","params":{"title":"Dune"}}"#) == Self.storageFailed("1"))
            #expect(try await reader.exchange(#"{"id":1,"method":"list"}"#) == ExpectedLine.list("1", revision: 0, items: []))
            #expect(try await reader.exchange(#"{"id":2,"method":"get","params":{"id":"\#(ExpectedLine.wireID(1))"}}"#)
                == ExpectedLine.error("2", code: 2, message: "This item is no longer available", reason: "not_found",
                                      extra: #""id":"\#(ExpectedLine.wireID(1))""#))
            writer.close()
            reader.close()
        }
    }
}
