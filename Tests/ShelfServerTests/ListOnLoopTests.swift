import Foundation
import ShelfCore
import ShelfSockets
import ShelfTestSupport
import Synchronization
import Testing

/// A `ReadingList` on the event loop's serial executor, as `shelfd` runs it: code on the loop calls it in place,
/// even from inside the list's own publish or rollback (a subscriber, a `whenAnswered` receiver).
@Suite struct ListOnLoopTests {
    private static func listOnLoop(_ store: any ListStore) async throws -> ReadingList {
        try await ReadingList(
            store: store, executor: Reactor.shared.executor.serial, completionExecutor: Reactor.shared.executor)
    }

    @Test("an answer asked for from inside the publish that answers it reaches its receiver")
    func whenAnsweredFromPublish() async throws {
        let store = GatedListStore()
        let list = try await Self.listOnLoop(store)
        let a = await list.submit(.add(title: "A"))
        // A stale expect: refused without a write, but answered only after A, in the same publish.
        let b = await list.submit(.add(title: "B"), expect: 0)
        guard case .pending = a, case .pending = b else {
            Issue.record("expected both requests to wait for A's save: \(a), \(b)")
            return
        }
        let answers = Mutex<[Result<MutationResult, ReadingListError>]>([])
        _ = await list.subscribe { change in
            if change.revision == 1 { list.whenAnswered(b) { outcome in answers.withLock { $0.append(outcome) } } }
        }
        store.open()
        try await withDeadline { try await waitUntil { answers.withLock { !$0.isEmpty } } }
        #expect(answers.withLock { $0 } == [.failure(ReadingListError.conflict(current: 1))])
        #expect(await list.outcome(of: a).map(\.revision) == .success(1))
    }

    @Test("an answer asked for from inside a rollback's receiver is the rollback's, not an unknown ticket")
    func whenAnsweredFromRollback() async throws {
        let store = GatedListStore()
        let list = try await Self.listOnLoop(store)
        let a = await list.submit(.add(title: "A"))
        let b = await list.submit(.add(title: "B"))
        let answers = Mutex<[String: Result<MutationResult, ReadingListError>]>([:])
        // Registered on the loop, so in place, before the save fails.
        await Task(executorPreference: Reactor.shared.executor) {
            list.whenAnswered(a) { outcome in
                answers.withLock { $0["A"] = outcome }
                list.whenAnswered(b) { outcome in answers.withLock { $0["B"] = outcome } }
            }
        }.value
        store.inner.failWrites = true
        store.open()
        try await withDeadline { try await waitUntil { answers.withLock { $0.count == 2 } } }
        let failed = Result<MutationResult, ReadingListError>.failure(.storageFailed(.injected("memory store write")))
        #expect(answers.withLock { $0 } == ["A": failed, "B": failed])
        #expect(await list.revision == 0)
    }
}

/// With a store that completes later (the file store), a change's reply is written from the list's publish; on one
/// connection, replies must still come in request order and `changed` notifications in revision order, never after
/// a reply that carries a later revision.
@Suite struct DurableReplyOrderTests {
    @Test("watching clients pipelining adds, hellos and pings over a file store see replies and changes in order",
          arguments: [UInt64(1), 2, 3])
    func orderPerConnection(seed: UInt64) async throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "shelf-order-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = FileListStore(path: directory.appending(path: "reading-list.json").path)
        let requests = 240
        try await withTestServer(store: store, seconds: 60) { server in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for client in 0..<4 {
                    group.addTask {
                        let connection = try await server.connect()
                        defer { connection.close() }
                        var random = SplitMix64(seed: seed &* 1000 &+ UInt64(client))
                        try await connection.send(#"{"id":0,"method":"watch","params":{"since":0}}"# + "\n")
                        var next = 1
                        while next <= requests {
                            var chunk = ""
                            for _ in 0..<Int(random.next() % 6 + 1) where next <= requests {
                                switch next % 3 {
                                case 0: chunk += #"{"id":\#(next),"method":"hello"}"# + "\n"
                                case 1: chunk += #"{"id":\#(next),"method":"add","params":{"title":"c\#(client) \#(next)"}}"# + "\n"
                                default: chunk += #"{"id":\#(next),"method":"ping"}"# + "\n"
                                }
                                next += 1
                            }
                            try await connection.send(chunk)
                        }
                        try await Self.checkOrder(of: connection, replies: requests + 1, client: client)
                    }
                }
                try await group.waitForAll()
            }
        }
    }

    /// Reads until `replies` replies came, checking the order rules as it goes.
    private static func checkOrder(of connection: LineConnection, replies: Int, client: Int) async throws {
        var lastID = -1
        var lastNotified: Revision = 0
        var lastReplyRevision: Revision = 0
        var seen = 0
        while seen < replies {
            let line = try await connection.readJSON()
            guard case .object(let object) = line else { throw LineConnectionError.closed }
            let revision: Revision? =
                if case .object(let result)? = object["result"] ?? object["params"], case .number(let number)? = result["revision"] {
                    Revision(number.text)
                } else { nil }
            if case .number(let number)? = object["id"], let id = Int(number.text) {
                #expect(id == lastID + 1, "client \(client): reply \(id) after \(lastID)")
                lastID = id
                seen += 1
                if let revision { lastReplyRevision = max(lastReplyRevision, revision) }
            } else if let revision {
                #expect(revision == lastNotified + 1, "client \(client): change \(revision) after \(lastNotified)")
                #expect(revision > lastReplyRevision, "client \(client): change \(revision) after a reply at \(lastReplyRevision)")
                lastNotified = revision
            }
        }
        #expect(lastID == replies - 1)
    }
}
