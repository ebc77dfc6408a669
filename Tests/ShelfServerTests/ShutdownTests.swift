import ShelfClient
import ShelfCore
import ShelfServer
import ShelfSockets
import Testing
import ShelfTestSupport

/// `Server.shutdown()`: stops accepting, finishes the replies it owes, says `closing` (`shutdown`), closes every
/// connection; idempotent.
@Suite struct ShutdownTests {
    @Test("shutdown closes every connected client and returns")
    func closesClients() async throws {
        try await withTestServer { server in
            var clients: [LineConnection] = []
            for n in 1...3 {
                let client = try await server.connect()
                // A reply proves the server accepted the connection and runs its session.
                #expect(try await client.exchange(#"{"id":\#(n),"method":"ping"}"#) == ExpectedLine.pong("\(n)"))
                clients.append(client)
            }
            await server.server.shutdown()
            for client in clients {
                #expect(try await client.readLine() == ExpectedLine.closingShutdown)
                #expect(try await client.readLine() == nil)
                client.close()
            }
        }
    }

    /// Without it a planned restart looked like a crash to every watcher: the connection just ended.
    @Test("at shutdown a watcher is sent closing with reason shutdown, then end of stream; a writer gets its owed reply first")
    func watcherIsToldOfTheShutdown() async throws {
        let store = GatedListStore()
        try await withRecordingTestServer(store: store) { server, log in
            let watcher = try await server.connect()
            #expect(try await watcher.exchange(#"{"id":1,"method":"watch"}"#) == ExpectedLine.result("1", #"{"revision":0}"#))
            let writer = try await server.connect()
            try await writer.send(#"{"id":2,"method":"add","params":{"title":"Dune"}}"# + "\n")
            try await waitUntil { store.enqueuedCount == 1 }
            let shutdown = Task { await server.server.shutdown() }
            try await waitUntil { log.count(containing: "shutting down") == 1 }
            store.open()
            // The watcher's session does not wait for other connections' saves: the change may come before it or not.
            var watcherLines: [String] = []
            while let line = try await watcher.readLine() { watcherLines.append(line) }
            let change = ExpectedNotification.added(1, ExpectedLine.itemJSON(1, "Dune", revision: 1))
            #expect(watcherLines == [ExpectedLine.closingShutdown] || watcherLines == [change, ExpectedLine.closingShutdown])
            #expect(try await writer.readLine() == ExpectedLine.item("2", revision: 1, item: ExpectedLine.itemJSON(1, "Dune", revision: 1)))
            #expect(try await writer.readLine() == ExpectedLine.closingShutdown)
            #expect(try await writer.readLine() == nil)
            await shutdown.value
            // One line for the shutdown, none per connection.
            #expect(log.count(containing: "closed") == 0)
            watcher.close()
            writer.close()
        }
    }

    @Test("shutdown may be called twice, concurrently and again afterwards")
    func idempotent() async throws {
        try await withTestServer { server in
            let client = try await server.connect()
            #expect(try await client.exchange(#"{"id":1,"method":"ping"}"#) == ExpectedLine.pong("1"))
            async let first: Void = server.server.shutdown()
            async let second: Void = server.server.shutdown()
            _ = await (first, second)
            await server.server.shutdown()
            #expect(try await client.readLine() == ExpectedLine.closingShutdown)
            #expect(try await client.readLine() == nil)
            client.close()
        }
    }

    @Test("after shutdown nobody can connect")
    func refusesNewConnections() async throws {
        try await withTestServer { server in
            let client = try await server.connect()
            #expect(try await client.exchange(#"{"id":1,"method":"ping"}"#) == ExpectedLine.pong("1"))
            await server.server.shutdown()
            #expect(try await client.readLine() == ExpectedLine.closingShutdown)
            #expect(try await client.readLine() == nil)
            client.close()
            let error = await #expect(throws: ClientError.self) { try await ShelfClient.connect(to: server.address) }
            guard case .cannotConnect? = error else {
                Issue.record("expected .cannotConnect, got \(String(describing: error))")
                return
            }
        }
    }

    @Test("start after shutdown is refused")
    func startAfterShutdown() async throws {
        try await withTestServer { server in
            let client = try await server.connect()
            #expect(try await client.exchange(#"{"id":1,"method":"ping"}"#) == ExpectedLine.pong("1"))
            await server.server.shutdown()
            await #expect(throws: ServerError.self) { _ = try await server.server.start() }
            client.close()
        }
    }

    // Bug: `shutdown()` on a server that was never started sets the state to stopped and returns; a second call
    // finds `.stopped` and waits for `run()` to finish, which never ran, so it never returns (Server.swift,
    // `case .stopped, .draining: await waitForRun()` with `runFinished` false).
    @Test("shutdown twice on a server that was never started returns both times")
    func shutdownTwiceWithoutStart() async throws {
        let list = try await ReadingList(store: MemoryListStore(identity: TestServer.listID))
        let server = Server(list: list, configuration: ServerConfiguration(listen: HostPort(host: "127.0.0.1", port: 0)), log: .silent)
        #expect(await finishesWithin(seconds: 2) { await server.shutdown() })
        #expect(await finishesWithin(seconds: 2) { await server.shutdown() }, "the second shutdown() never returned")
        await #expect(throws: ServerError.self) { _ = try await server.start() }
    }

    // Bug: when `shutdown()` runs between `start()` and the moment `run()` begins (a signal right after start, or
    // `Task { await server.run() }` followed at once by shutdown), it sets `.draining` and waits for `run()`; `run()`
    // then sees a state other than `.running` and returns without setting `runFinished` or resuming the waiter, so
    // `shutdown()` never returns (Server.swift, `guard case .running(let listener) = state else { return }`).
    @Test("shutdown requested before run has begun still returns once run is called")
    func shutdownBeforeRun() async throws {
        let log = LogRecorder()
        let list = try await ReadingList(store: MemoryListStore(identity: TestServer.listID))
        let server = Server(list: list, configuration: ServerConfiguration(listen: HostPort(host: "127.0.0.1", port: 0)), log: log.log)
        _ = try await server.start()
        let shutdown = Task { await server.shutdown() }
        try await withDeadline { try await waitUntil { log.count(containing: "shutting down") == 1 } }
        #expect(await finishesWithin(seconds: 2) { await server.run() })
        #expect(await finishesWithin(seconds: 2) { await shutdown.value }, "shutdown() never returned")
    }

    @Test("a client with half a line sent gets EOF at shutdown and no reply")
    func partialLine() async throws {
        try await withTestServer { server in
            let client = try await server.connect()
            // The half line travels in the same write as a ping, so once the ping is answered the server has read
            // it too (and has nothing unread when it closes).
            try await client.send(#"{"id":1,"method":"ping"}"# + "\n" + #"{"id":2,"method":"pi"#)
            #expect(try await client.nextLine() == ExpectedLine.pong("1"))
            await server.server.shutdown()
            #expect(try await client.readLine() == ExpectedLine.closingShutdown)
            #expect(try await client.readLine() == nil)
            client.close()
        }
    }

    // Bug: a session closes its socket with `close()` while the peer's later bytes sit unread in the receive buffer,
    // so the kernel sends RST instead of FIN: the client's read fails with ECONNRESET (`SocketError.peerClosed`)
    // instead of returning EOF, and any part of an owed reply still in the server's send queue is discarded (over
    // loopback the small reply here is already across, so only the reset shows). Input: one add whose save is held,
    // shutdown, then `{"id":2,"method":"ping"}\n`, then the save is released. Observed: the add's reply, then
    // ECONNRESET. Expected: the add's reply, then EOF (e.g. shut down writing, drain input briefly, then close).
    @Test("requests that arrive after shutdown began are not answered; the owed reply still comes, then EOF")
    func bytesAfterShutdownBegan() async throws {
        let store = GatedListStore()
        try await withRecordingTestServer(store: store) { server, log in
            let client = try await server.connect()
            try await client.send(#"{"id":1,"method":"add","params":{"title":"Dune"}}"# + "\n")
            try await waitUntil { store.enqueuedCount == 1 }
            let shutdown = Task { await server.server.shutdown() }
            try await waitUntil { log.count(containing: "shutting down") == 1 }
            try await client.send(#"{"id":2,"method":"ping"}"# + "\n")
            store.open()
            #expect(try await client.nextLine() == ExpectedLine.item("1", revision: 1, item: ExpectedLine.itemJSON(1, "Dune", revision: 1)))
            // EOF, not a reset (a reset surfaces as a thrown SocketError.peerClosed).
            #expect(try await client.readLine() == ExpectedLine.closingShutdown)
            #expect(try await client.readLine() == nil)
            await shutdown.value
            client.close()
        }
    }

    // Bug: `Session.readLoop` checks `Task.isCancelled` before each framed event, so after `stop()` the requests it
    // has already read off the socket but not yet queued (it was waiting for a pending-request slot, or for reply
    // budget, `Session.waitForRoom`) are dropped without a reply. Here: a window of 1, three requests in one
    // write, the first one's save held; the reader has read all three and waits for a slot when shutdown begins.
    // Observed: the add's reply, pong 2, then EOF; the ping with id 3 is never answered. (With the default
    // configuration the same happens through the 8 MiB reply budget: 12 pipelined 1 MB list replies, shutdown after
    // the first arrived, gave 1 to 11 replies and then EOF.)
    @Test("requests already read when shutdown begins are all answered, even while the pending window is full")
    func readRequestsAreAnsweredAtShutdown() async throws {
        let store = GatedListStore()
        let configuration = ServerConfiguration(listen: HostPort(host: "127.0.0.1", port: 0), maxPendingRequests: 1)
        try await withRecordingTestServer(store: store, configuration: configuration) { server, log in
            let client = try await server.connect()
            try await client.send(
                #"{"id":1,"method":"add","params":{"title":"Dune"}}"# + "\n" + #"{"id":2,"method":"ping"}"# + "\n"
                    + #"{"id":3,"method":"ping"}"# + "\n")
            // The add reached the store, so the read that carried all three lines is done.
            try await waitUntil { store.enqueuedCount == 1 }
            let shutdown = Task { await server.server.shutdown() }
            try await waitUntil { log.count(containing: "shutting down") == 1 }
            store.open()
            var replies: [String] = []
            while let line = try await client.readLine() { replies.append(line) }
            #expect(replies == [
                ExpectedLine.item("1", revision: 1, item: ExpectedLine.itemJSON(1, "Dune", revision: 1)),
                ExpectedLine.pong("2"),
                ExpectedLine.pong("3"),
                ExpectedLine.closingShutdown,
            ])
            await shutdown.value
            client.close()
        }
    }

    // Deterministic: the store holds the save, so the reply cannot have been written before shutdown starts; the
    // test releases the save only once the server has logged that it is shutting down. (If the store were released
    // a moment before the sessions are told to stop, the reply would still come first and then EOF: the expected
    // outcome is the same either way.)
    @Test("a reply owed for a request already read is delivered before the connection closes")
    func owedReplyIsDelivered() async throws {
        let store = GatedListStore()
        try await withRecordingTestServer(store: store) { server, log in
            let client = try await server.connect()
            #expect(try await client.exchange(#"{"id":1,"method":"ping"}"#) == ExpectedLine.pong("1"))
            try await client.send(#"{"id":2,"method":"add","params":{"title":"Dune"}}"# + "\n")
            try await waitUntil { store.enqueuedCount == 1 }
            let shutdown = Task { await server.server.shutdown() }
            try await waitUntil { log.count(containing: "shutting down") == 1 }
            store.open()
            #expect(try await client.nextLine() == ExpectedLine.item("2", revision: 1, item: ExpectedLine.itemJSON(1, "Dune", revision: 1)))
            #expect(try await client.readLine() == ExpectedLine.closingShutdown)
            #expect(try await client.readLine() == nil)
            await shutdown.value
            #expect(store.inner.stored.revision == 1)
            client.close()
        }
    }
}
