import ShelfClient
import ShelfCore
import ShelfJSON
import ShelfServer
import ShelfSockets
import ShelfWire
import Testing
import ShelfTestSupport

/// `ShelfClient` while more notifications wait untaken than it reads on for (256 KiB): a call waiting for its reply
/// keeps it reading, since the reply may be behind them (a consumer that is merely stuck still holds the server
/// back: `ClientLibraryTests.untakenNotificationsHoldTheServerBack`).
@Suite struct ClientHeldNotificationsTests {
    /// Takes `count` notifications from `client` and checks that they are `changed` ones for revisions 1…`count`,
    /// each adding the item titled by `title`.
    private static func expectChanges(
        _ count: Int, from client: ShelfClient, title: @Sendable (Int) -> String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        var iterator = client.notifications.makeAsyncIterator()
        for n in 1...count {
            guard let notification = await iterator.next() else {
                Issue.record("the notifications ended after \(n - 1) of \(count)", sourceLocation: sourceLocation)
                return
            }
            guard notification.method == "changed", let change = ServerNotification.change(fromParams: notification.params),
                  case .added(let item) = change.change
            else {
                Issue.record("notification \(n) is \(notification)", sourceLocation: sourceLocation)
                return
            }
            guard change.revision == Revision(n), item.title == title(n) else {
                Issue.record("notification \(n) is for revision \(change.revision), \(item.title)", sourceLocation: sourceLocation)
                return
            }
        }
    }

    /// Found by review: the server writes a watch's backlog before the watch reply, the client stopped reading once
    /// 256 KiB of it waited untaken, and nothing took it until `watch` returned: `shelf watch` resuming after 1,200
    /// changes hung for ever, its 3 s timeout re-armed all the while.
    @Test("watch(since: 0) behind a backlog of 1,500 changes (about 400 KB) returns, and every change is then taken in revision order")
    func watchBehindALargeBacklogReturns() async throws {
        try await withTestServer { server in
            let count = 1_500
            let padding = String(repeating: "p", count: 100)
            let title: @Sendable (Int) -> String = { "Item \($0) \(padding)" }
            let writer = try await ShelfClient.connect(to: server.address)
            let added = await writer.pipelined((1...count).map { .mutate(.add(title: title($0)), expect: nil) })
            #expect(added.allSatisfy { (try? $0.get()) != nil })
            await writer.close()

            let watcher = try await ShelfClient.connect(to: server.address, timeout: .seconds(3))
            let reply = try await withDeadline(seconds: 20) { try await watcher.call(.watch(since: 0)) }
            #expect(reply.objectValue?["revision"]?.numberValue?.uint64 == UInt64(count))
            await Self.expectChanges(count, from: watcher, title: title)
            // And it is an ordinary connection after it.
            try await watcher.ping()
            await watcher.close()
        }
    }

    /// A watcher sees its own change's notification before the reply to the call that made it (protocol/PROTOCOL.md
    /// §6): once 256 KiB of them waited untaken, the reader stopped and the next call's reply never came.
    @Test("a watching client that makes 600 changes of 1 KB without taking their notifications gets every reply, then every notification in order")
    func ownChangesBehindUntakenNotifications() async throws {
        try await withTestServer { server in
            let count = 600
            let padding = String(repeating: "o", count: 980)
            let title: @Sendable (Int) -> String = { "Own \($0) \(padding)" }
            let watcher = try await ShelfClient.connect(to: server.address, timeout: .seconds(3))
            _ = try await watcher.call(.watch(since: nil))
            for n in 1...count {
                let (revision, _) = try await watcher.apply(.add(title: title(n)))
                #expect(revision == Revision(n))
            }
            await Self.expectChanges(count, from: watcher, title: title)
            await watcher.close()
        }
    }

    /// The reply timer re-armed for as long as the reader was held, and a call made then released nobody: a server
    /// that fell silent behind 300 KB of notifications was waited on for ever.
    @Test("a call sent while notifications wait untaken still fails with noReply after the timeout when the server then says nothing")
    func timeoutBehindUntakenNotifications() async throws {
        let listener = try TCPListener.listen(on: HostPort(host: "127.0.0.1", port: 0))
        defer { listener.close() }
        // 1,200 notifications of about 250 bytes each, more than the 256 KiB the client takes without a consumer.
        let note = #"{"jsonrpc":"2.0","method":"changed","params":{"padding":""# + String(repeating: "n", count: 200) + "\"}}\n"
        let notes = Array(String(repeating: note, count: 1_200).utf8)
        let serving = Task {
            let connection = try await listener.accept()
            defer { connection.close() }
            // The ping arrives, then the notifications go out and no reply ever follows.
            _ = try await connection.read()
            try await connection.write(notes)
            while try await !connection.read().isEmpty {}
        }
        defer { serving.cancel() }
        try await withDeadline(seconds: 60) {
            let client = try await ShelfClient.connect(to: listener.localAddress, timeout: .seconds(2))
            await expectUnansweredPing(on: client, limit: .seconds(2))
            await client.close()
        }
    }
}
