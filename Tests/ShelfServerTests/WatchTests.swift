import ShelfClient
import ShelfCore
import ShelfJSON
import ShelfServer
import ShelfSockets
import ShelfWire
import Testing

/// `watch`, `unwatch` and `changed` notifications (protocol/PROTOCOL.md §6), and the ordering rule of §3: nothing
/// the server sends on a connection goes back in revision.
@Suite struct WatchTests {
    private static let dune = ExpectedLine.wireID(2)

    @Test("a watch from now gets the later changes of other connections: added, updated and removed in their exact shapes")
    func watchFromNow() async throws {
        try await withTestServer { server in
            let watcher = try await server.connect()
            let editor = try await server.connect()
            // A change before the watch is not sent.
            #expect(try await editor.exchange(#"{"id":1,"method":"add","params":{"title":"Before"}}"#)
                == ExpectedLine.item("1", revision: 1, item: ExpectedLine.itemJSON(1, "Before", revision: 1)))
            #expect(try await watcher.exchange(#"{"id":1,"method":"watch"}"#) == ExpectedLine.result("1", #"{"revision":1}"#))

            let added = ExpectedLine.itemJSON(2, "Dune", revision: 2)
            let marked = ExpectedLine.itemJSON(2, "Dune", read: true, revision: 3, readTick: 3)
            let renamed = ExpectedLine.itemJSON(2, "Dune Messiah", read: true, revision: 4, readTick: 3)
            let toggled = ExpectedLine.itemJSON(2, "Dune Messiah", revision: 5)
            #expect(try await editor.exchange(#"{"id":2,"method":"add","params":{"title":"Dune"}}"#) == ExpectedLine.item("2", revision: 2, item: added))
            #expect(try await editor.exchange(#"{"id":3,"method":"mark","params":{"id":"\#(Self.dune)","read":true}}"#)
                == ExpectedLine.item("3", revision: 3, item: marked))
            #expect(try await editor.exchange(#"{"id":4,"method":"rename","params":{"id":"\#(Self.dune)","title":" Dune Messiah "}}"#)
                == ExpectedLine.item("4", revision: 4, item: renamed))
            #expect(try await editor.exchange(#"{"id":5,"method":"toggle","params":{"id":"\#(Self.dune)"}}"#)
                == ExpectedLine.item("5", revision: 5, item: toggled))
            #expect(try await editor.exchange(#"{"id":6,"method":"remove","params":{"id":"\#(Self.dune)"}}"#)
                == ExpectedLine.result("6", #"{"revision":6,"id":"\#(Self.dune)"}"#))
            // Requests that write nothing send nothing: a no-op mark, and a failed one.
            #expect(try await editor.exchange(#"{"id":7,"method":"mark","params":{"id":"\#(ExpectedLine.wireID(1))","read":false}}"#)
                == ExpectedLine.item("7", revision: 6, item: ExpectedLine.itemJSON(1, "Before", revision: 1)))
            #expect(try await editor.exchange(#"{"id":8,"method":"toggle","params":{"id":"\#(Self.dune)"}}"#)
                == ExpectedLine.error("8", code: 2, message: "This item is no longer available", reason: "not_found", extra: #""id":"\#(Self.dune)""#))

            expectSameLines(try await watcher.nextLines(5), [
                ExpectedNotification.added(2, added),
                ExpectedNotification.updated(3, marked),
                ExpectedNotification.updated(4, renamed),
                ExpectedNotification.updated(5, toggled),
                ExpectedNotification.removed(6, id: Self.dune),
            ])
            // Nothing else was sent: replies come in order, so the next line is the pong.
            #expect(try await watcher.exchange(#"{"id":2,"method":"ping"}"#) == ExpectedLine.pong("2"))
            watcher.close()
            editor.close()
        }
    }

    @Test("watch with since sends the kept changes after it in order, then its reply, then live changes")
    func watchSinceReplaysBacklog() async throws {
        try await withTestServer { server in
            let editor = try await server.connect()
            try await editor.send((1...5).map { #"{"id":\#($0),"method":"add","params":{"title":"A\#($0)"}}"# }.joined(separator: "\n") + "\n")
            expectSameLines(try await editor.nextLines(5), (1...5).map {
                ExpectedLine.item("\($0)", revision: $0, item: ExpectedLine.itemJSON($0, "A\($0)", revision: $0))
            })

            let watcher = try await server.connect()
            try await watcher.send(#"{"id":1,"method":"watch","params":{"since":2}}"# + "\n")
            expectSameLines(try await watcher.nextLines(4), (3...5).map {
                ExpectedNotification.added($0, ExpectedLine.itemJSON($0, "A\($0)", revision: $0))
            } + [ExpectedLine.result("1", #"{"revision":5}"#)])

            let sixth = ExpectedLine.itemJSON(6, "A6", revision: 6)
            let third = ExpectedLine.itemJSON(3, "A3", read: true, revision: 7, readTick: 7)
            #expect(try await editor.exchange(#"{"id":6,"method":"add","params":{"title":"A6"}}"#) == ExpectedLine.item("6", revision: 6, item: sixth))
            #expect(try await editor.exchange(#"{"id":7,"method":"toggle","params":{"id":"\#(ExpectedLine.wireID(3))"}}"#)
                == ExpectedLine.item("7", revision: 7, item: third))
            expectSameLines(try await watcher.nextLines(2), [ExpectedNotification.added(6, sixth), ExpectedNotification.updated(7, third)])
            #expect(try await watcher.exchange(#"{"id":2,"method":"ping"}"#) == ExpectedLine.pong("2"))

            // since equal to the current revision: no backlog, just the reply.
            #expect(try await watcher.exchange(#"{"id":3,"method":"watch","params":{"since":7}}"#) == ExpectedLine.result("3", #"{"revision":7}"#))
            watcher.close()
            editor.close()
        }
    }

    @Test("watching again sends no change twice: a since below what was sent is 6, the earlier watch kept; from there it works")
    func watchAgainSendsNothingTwice() async throws {
        try await withTestServer { server in
            let connection = try await server.connect()
            let first = ExpectedLine.itemJSON(1, "A", revision: 1)
            let second = ExpectedLine.itemJSON(2, "B", revision: 2)
            try await connection.send(#"{"id":1,"method":"add","params":{"title":"A"}}"# + "\n" + #"{"id":2,"method":"add","params":{"title":"B"}}"# + "\n")
            _ = try await connection.nextLines(2)
            try await connection.send(#"{"id":3,"method":"watch","params":{"since":0}}"# + "\n")
            expectSameLines(try await connection.nextLines(3), [
                ExpectedNotification.added(1, first), ExpectedNotification.added(2, second), ExpectedLine.result("3", #"{"revision":2}"#),
            ])
            #expect(try await connection.exchange(#"{"id":4,"method":"watch","params":{"since":1}}"#) == ExpectedLine.error(
                "4", code: 6,
                message: "Changes up to revision 2 were already sent on this connection; watch from revision 2 or later (since 1 would send them again), or unwatch, list again and watch from the list's revision",
                reason: "compacted", extra: #""revision":2"#))
            #expect(try await connection.exchange(#"{"id":5,"method":"watch","params":{"since":2}}"#) == ExpectedLine.result("5", #"{"revision":2}"#))
            let third = ExpectedLine.itemJSON(3, "C", revision: 3)
            try await connection.send(#"{"id":6,"method":"add","params":{"title":"C"}}"# + "\n" + #"{"id":7,"method":"ping"}"# + "\n")
            expectSameLines(try await connection.nextLines(3), [
                ExpectedNotification.added(3, third), ExpectedLine.item("6", revision: 3, item: third), ExpectedLine.pong("7"),
            ])
            connection.close()
        }
    }

    /// Requests on one connection are answered in order (§3), and a watch's backlog goes out before its reply
    /// (§6): a pipelined second watch must not send its backlog before the first watch's reply, nor a watch
    /// pipelined after `unwatch` before the `unwatch` reply.
    @Test("pipelined watch requests: each backlog comes after the reply to the request before it")
    func pipelinedWatchesKeepRequestOrder() async throws {
        try await withTestServer { server in
            let connection = try await server.connect()
            let editor = try await server.connect()
            let first = ExpectedLine.itemJSON(1, "A", revision: 1)
            let second = ExpectedLine.itemJSON(2, "B", revision: 2)
            let third = ExpectedLine.itemJSON(3, "C", revision: 3)
            for (n, title) in [(1, "A"), (2, "B"), (3, "C")] {
                _ = try await editor.exchange(#"{"id":\#(n),"method":"add","params":{"title":"\#(title)"}}"#)
            }
            try await connection.send(
                #"{"id":3,"method":"watch","params":{"since":0}}"# + "\n" + #"{"id":4,"method":"watch","params":{"since":3}}"# + "\n"
                    + #"{"id":5,"method":"unwatch"}"# + "\n" + #"{"id":6,"method":"watch","params":{"since":3}}"# + "\n")
            expectSameLines(try await connection.nextLines(7), [
                ExpectedNotification.added(1, first), ExpectedNotification.added(2, second), ExpectedNotification.added(3, third),
                ExpectedLine.result("3", #"{"revision":3}"#),
                ExpectedLine.result("4", #"{"revision":3}"#),
                ExpectedLine.result("5", #"{"revision":3}"#),
                ExpectedLine.result("6", #"{"revision":3}"#),
            ])
            connection.close()
            editor.close()
        }
    }

    @Test("a list then a watch from its revision, while another client keeps adding, misses nothing and repeats nothing")
    func listThenWatchUnderLoad() async throws {
        let adds = 300
        try await withTestServer(seconds: 30) { server in
            let editor = try await server.connect()
            let watcher = try await server.connect()
            try await editor.send((1...adds).map { #"{"id":\#($0),"method":"add","params":{"title":"n\#($0)"}}"# }.joined(separator: "\n") + "\n")
            let editorDone = Task { try await editor.nextLines(adds) }

            let listed = try await watcher.call(#"{"id":"l","method":"list"}"#)
            let (since, startItems) = try ResultDecoding.list(try #require(listed.member("result")))
            try await watcher.send(#"{"id":"w","method":"watch","params":{"since":\#(since)}}"# + "\n")
            let replies = try await editorDone.value
            #expect(replies.last == ExpectedLine.item("\(adds)", revision: adds, item: ExpectedLine.itemJSON(adds, "n\(adds)", revision: adds)))
            // Every add is saved now; the pong comes after every notification owed.
            try await watcher.send(#"{"id":"end","method":"ping"}"# + "\n")
            var lines: [String] = []
            while lines.last != ExpectedLine.pong(#""end""#) { lines.append(try await watcher.nextLine()) }

            var state = try ItemCollection.make(startItems).get()
            var revisions: [Int] = []
            var watchReplyAt: Int?
            for line in lines.dropLast() {
                let value = try JSONParser.parse(Array(line.utf8))
                if value.member("id") == .string("w") {
                    #expect(watchReplyAt == nil)
                    watchReplyAt = value.integer("result", "revision")
                    #expect(watchReplyAt == revisions.last ?? Int(since), "the watch reply comes right after its backlog")
                    continue
                }
                let params = try #require(value.member("params")?.objectValue, "not a notification: \(line)")
                let change = try #require(ServerNotification.change(fromParams: params))
                let n = Int(change.revision)
                #expect(line == ExpectedNotification.added(n, ExpectedLine.itemJSON(n, "n\(n)", revision: n)))
                revisions.append(n)
                state.apply(change.change)
            }
            #expect(watchReplyAt != nil)
            #expect(revisions == Array(Int(since) + 1 ..< adds + 1), "since \(since): each change after it exactly once, in order")
            let final = try ResultDecoding.list(try #require(try await watcher.call(#"{"id":"f","method":"list"}"#).member("result")))
            #expect(final.revision == Revision(adds))
            #expect(state.items == final.items)
            watcher.close()
            editor.close()
        }
    }

    @Test("a since whose changes are no longer kept, or that is ahead of the list, is error 6 with the current revision")
    func compacted() async throws {
        // Five changes kept: after eight, revisions 4...8 are, so a watch from 3 works and one from 2 does not.
        try await withHistoryTestServer(historyLimit: 5) { server in
            let editor = try await server.connect()
            try await editor.send((1...8).map { #"{"id":\#($0),"method":"add","params":{"title":"A\#($0)"}}"# }.joined(separator: "\n") + "\n")
            _ = try await editor.nextLines(8)

            let watcher = try await server.connect()
            #expect(try await watcher.exchange(#"{"id":1,"method":"watch","params":{"since":2}}"#) == ExpectedLine.error(
                "1", code: 6, message: "Changes after revision 2 are no longer kept (the list is at 8); list again and watch from there",
                reason: "compacted", extra: #""revision":8"#))
            #expect(try await watcher.exchange(#"{"id":2,"method":"watch","params":{"since":9}}"#) == ExpectedLine.error(
                "2", code: 6, message: "Revision 9 is ahead of the list (at 8); list again and watch from there",
                reason: "compacted", extra: #""revision":8"#))
            #expect(try await watcher.exchange(#"{"id":3,"method":"watch","params":{"since":18446744073709551615}}"#) == ExpectedLine.error(
                "3", code: 6, message: "Revision 18446744073709551615 is ahead of the list (at 8); list again and watch from there",
                reason: "compacted", extra: #""revision":8"#))
            // The failed watches left this connection unwatched.
            #expect(try await editor.exchange(#"{"id":9,"method":"add","params":{"title":"A9"}}"#)
                == ExpectedLine.item("9", revision: 9, item: ExpectedLine.itemJSON(9, "A9", revision: 9)))
            #expect(try await watcher.exchange(#"{"id":4,"method":"ping"}"#) == ExpectedLine.pong("4"))

            // Now 5...9 are kept: from 4 is the oldest that works.
            #expect(try await watcher.exchange(#"{"id":5,"method":"watch","params":{"since":3}}"#) == ExpectedLine.error(
                "5", code: 6, message: "Changes after revision 3 are no longer kept (the list is at 9); list again and watch from there",
                reason: "compacted", extra: #""revision":9"#))
            try await watcher.send(#"{"id":6,"method":"watch","params":{"since":4}}"# + "\n")
            expectSameLines(try await watcher.nextLines(6), (5...9).map {
                ExpectedNotification.added($0, ExpectedLine.itemJSON($0, "A\($0)", revision: $0))
            } + [ExpectedLine.result("6", #"{"revision":9}"#)])
            // A failed watch leaves the earlier one in place.
            #expect(try await watcher.exchange(#"{"id":7,"method":"watch","params":{"since":1}}"#) == ExpectedLine.error(
                "7", code: 6, message: "Changes after revision 1 are no longer kept (the list is at 9); list again and watch from there",
                reason: "compacted", extra: #""revision":9"#))
            let tenth = ExpectedLine.itemJSON(10, "A10", revision: 10)
            #expect(try await editor.exchange(#"{"id":10,"method":"add","params":{"title":"A10"}}"#) == ExpectedLine.item("10", revision: 10, item: tenth))
            #expect(try await watcher.nextLine() == ExpectedNotification.added(10, tenth))
            watcher.close()
            editor.close()
        }
    }

    @Test("with no history kept, a watch works only from the current revision")
    func noHistory() async throws {
        try await withHistoryTestServer(historyLimit: 0) { server in
            let connection = try await server.connect()
            let first = ExpectedLine.itemJSON(1, "A", revision: 1)
            #expect(try await connection.exchange(#"{"id":1,"method":"add","params":{"title":"A"}}"#) == ExpectedLine.item("1", revision: 1, item: first))
            #expect(try await connection.exchange(#"{"id":2,"method":"watch","params":{"since":0}}"#) == ExpectedLine.error(
                "2", code: 6, message: "Changes after revision 0 are no longer kept (the list is at 1); list again and watch from there",
                reason: "compacted", extra: #""revision":1"#))
            #expect(try await connection.exchange(#"{"id":3,"method":"watch","params":{"since":1}}"#) == ExpectedLine.result("3", #"{"revision":1}"#))
            let second = ExpectedLine.itemJSON(2, "B", revision: 2)
            try await connection.send(#"{"id":4,"method":"add","params":{"title":"B"}}"# + "\n")
            expectSameLines(try await connection.nextLines(2), [ExpectedNotification.added(2, second), ExpectedLine.item("4", revision: 2, item: second)])
            connection.close()
        }
    }

    @Test("after unwatch's reply no notification comes: another client's change is followed directly by the pong")
    func unwatchStops() async throws {
        try await withTestServer { server in
            let watcher = try await server.connect()
            let editor = try await server.connect()
            #expect(try await watcher.exchange(#"{"id":1,"method":"watch"}"#) == ExpectedLine.result("1", #"{"revision":0}"#))
            let first = ExpectedLine.itemJSON(1, "Dune", revision: 1)
            #expect(try await editor.exchange(#"{"id":1,"method":"add","params":{"title":"Dune"}}"#) == ExpectedLine.item("1", revision: 1, item: first))
            #expect(try await watcher.nextLine() == ExpectedNotification.added(1, first))
            #expect(try await watcher.exchange(#"{"id":2,"method":"unwatch"}"#) == ExpectedLine.result("2", #"{"revision":1}"#))
            // B's add is saved and published once its reply is in; only then does A ping.
            #expect(try await editor.exchange(#"{"id":2,"method":"add","params":{"title":"Emma"}}"#)
                == ExpectedLine.item("2", revision: 2, item: ExpectedLine.itemJSON(2, "Emma", revision: 2)))
            #expect(try await watcher.exchange(#"{"id":3,"method":"ping"}"#) == ExpectedLine.pong("3"))
            // unwatch when not watching is fine too.
            #expect(try await watcher.exchange(#"{"id":4,"method":"unwatch"}"#) == ExpectedLine.result("4", #"{"revision":2}"#))
            watcher.close()
            editor.close()
        }
    }

    @Test("a watcher's own change is announced before the reply carrying its revision")
    func ownChangeBeforeReply() async throws {
        try await withTestServer { server in
            let connection = try await server.connect()
            #expect(try await connection.exchange(#"{"id":1,"method":"watch"}"#) == ExpectedLine.result("1", #"{"revision":0}"#))
            let added = ExpectedLine.itemJSON(1, "Dune", revision: 1)
            let read = ExpectedLine.itemJSON(1, "Dune", read: true, revision: 2, readTick: 2)
            try await connection.send(
                #"{"id":2,"method":"add","params":{"title":"Dune"}}"# + "\n" + #"[{"id":3,"method":"hello"},{"id":4,"method":"toggle","params":{"id":"\#(ExpectedLine.wireID(1))"}}]"# + "\n")
            expectSameLines(try await connection.nextLines(4), [
                ExpectedNotification.added(1, added),
                ExpectedLine.item("2", revision: 1, item: added),
                ExpectedNotification.updated(2, read),
                "[" + ExpectedLine.hello("3", revision: 1) + "," + ExpectedLine.item("4", revision: 2, item: read) + "]",
            ])
            connection.close()
        }
    }

    @Test("a watcher pipelining its own writes and reads while another client writes: nothing it is sent goes back in revision")
    func orderingUnderConcurrentWrites() async throws {
        let requests = 200
        try await withTestServer(seconds: 30) { server in
            let watcher = try await server.connect()
            let other = try await server.connect()
            #expect(try await watcher.exchange(#"{"id":0,"method":"watch"}"#) == ExpectedLine.result("0", #"{"revision":0}"#))
            // The watcher's own mix: adds, a hello every 10th, a batch of two adds every 50th.
            let own = (1...requests).map { n -> String in
                if n % 10 == 0 { return #"{"id":\#(n),"method":"hello"}"# }
                if n % 50 == 25 {
                    return #"[{"id":\#(n),"method":"add","params":{"title":"w\#(n)a"}},{"id":\#(n),"method":"add","params":{"title":"w\#(n)b"}}]"#
                }
                return #"{"id":\#(n),"method":"add","params":{"title":"w\#(n)"}}"#
            }
            let ownAdds = (1...requests).reduce(0) { $0 + ($1 % 10 == 0 ? 0 : $1 % 50 == 25 ? 2 : 1) }
            let otherReplies = Task {
                try await other.send((1...requests).map { #"{"id":\#($0),"method":"add","params":{"title":"o\#($0)"}}"# }.joined(separator: "\n") + "\n")
                return try await other.nextLines(requests)
            }
            try await watcher.send(own.joined(separator: "\n") + "\n")
            var lines: [String] = []
            var replies = 0
            while replies < requests {
                let line = try await watcher.nextLine()
                if !line.hasPrefix(#"{"jsonrpc":"2.0","method":"#) { replies += 1 }
                lines.append(line)
            }
            #expect(try await otherReplies.value.count == requests)
            let total = ownAdds + requests
            // Everything is saved: the pong follows every notification still owed.
            try await watcher.send(#"{"id":"end","method":"ping"}"# + "\n")
            while lines.last != ExpectedLine.pong(#""end""#) { lines.append(try await watcher.nextLine()) }

            var lastNotified = 0
            var highest = 0
            var notified: [Int: JSONValue] = [:]
            for line in lines.dropLast() {
                let value = try JSONParser.parse(Array(line.utf8))
                if value.member("method") == .string("changed") {
                    let revision = try #require(value.integer("params", "revision"))
                    #expect(revision == lastNotified + 1, "notifications in order, none missing: \(revision) after \(lastNotified)")
                    lastNotified = revision
                    notified[revision] = value.member("params", "change", "item")
                    highest = max(highest, revision)
                    continue
                }
                // A reply (or a batch of them): its revision is the highest its parts carry.
                let parts = value.arrayValue ?? [value]
                let revisions = parts.compactMap { $0.integer("result", "revision") }
                let revision = try #require(revisions.max(), "a reply without a revision: \(line)")
                #expect(revision >= highest, "went back in revision: \(line.prefix(200)) after \(highest)")
                #expect(revision <= lastNotified, "reply at \(revision) before the notification of it: \(line.prefix(200))")
                highest = max(highest, revision)
                for part in parts where part.member("result", "item") != nil {
                    // The watcher's own change: the notification of that revision announced the very same item.
                    let own = try #require(part.integer("result", "revision"))
                    #expect(notified[own] == part.member("result", "item"))
                }
            }
            #expect(lastNotified == total)
            #expect(try await watcher.exchange(#"{"id":"h","method":"hello"}"#) == ExpectedLine.hello(#""h""#, revision: total))
            watcher.close()
            other.close()
        }
    }
}
