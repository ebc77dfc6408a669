import Foundation
import ShelfJSON
import ShelfServer
import ShelfSockets
import Testing

/// A batch's replies against the reply budget (`--max-outbound-bytes`, protocol/PROTOCOL.md §10): a batch's line
/// is written whole, so once its replies hold the budget the rest of its requests are refused, not carried out.
@Suite struct BatchBudgetTests {
    /// Runs `body` with a connection to a fresh server whose reply budget is 4096 bytes.
    private static func withConnection(_ body: @escaping @Sendable (LineConnection) async throws -> Void) async throws {
        var configuration = ServerConfiguration(listen: HostPort(host: "127.0.0.1", port: 0))
        configuration.maxOutboundBytes = 4096
        try await withTestServer(configuration: configuration) { server in
            let connection = try await server.connect()
            defer { connection.close() }
            try await body(connection)
        }
    }

    /// Found by a hostile-input run: one line of 1000 `list`s of a 2 MB list grew shelfd to 4.4 GB, and the same on
    /// a larger list would take the machine's memory.
    @Test("with a 4096-byte budget, a batch of list, list, list, add, ping: two lists are answered, the rest refused with -32600 and the add not made")
    func refusedPastTheBudget() async throws {
        try await Self.withConnection { connection in
            let title = String(repeating: "t", count: 900)
            for n in 1...3 {
                let reply = try await connection.call(#"{"id":\#(n),"method":"add","params":{"title":"\#(title)"}}"#)
                #expect(reply.integer("result", "revision") == n)
            }
            let batch = "[" + [
                #"{"id":"a","method":"list"}"#, #"{"id":"b","method":"list"}"#, #"{"id":"c","method":"list"}"#,
                #"{"id":"d","method":"add","params":{"title":"Dune"}}"#, #"{"id":"e","method":"ping"}"#,
            ].joined(separator: ",") + "]"

            let replies = try #require(try await connection.call(batch).arrayValue)

            #expect(replies.map { $0.member("id")?.stringValue } == ["a", "b", "c", "d", "e"])
            #expect(replies.prefix(2).allSatisfy { $0.member("result", "items")?.arrayValue?.count == 3 })
            let refusal = "Invalid request: this batch's replies passed 4096 bytes before this request, which was not carried out; send it again on its own"
            for reply in replies.dropFirst(2) {
                #expect(reply.integer("error", "code") == -32600)
                #expect(reply.member("error", "message")?.stringValue == refusal)
            }
            #expect(try await connection.call(#"{"id":9,"method":"list"}"#).integer("result", "revision") == 3)
        }
    }

    /// Found by review: a mutation's reply was not counted (it is made later, by the writer), so 1000 `mark`s of an
    /// item with a 31,000-byte title made one 31 MB line; and a notification in the refused part was dropped.
    @Test("with a 4096-byte budget, marks of an item with a 900-character title count their replies: the sixth is refused, and a notification past the budget is still carried out")
    func mutationRepliesCount() async throws {
        try await Self.withConnection { connection in
            let title = String(repeating: "t", count: 900)
            let added = try await connection.call(#"{"id":0,"method":"add","params":{"title":"\#(title)"}}"#)
            let id = try #require(added.member("result", "item", "id")?.stringValue)
            let mark = { (n: Int) in #"{"id":\#(n),"method":"mark","params":{"id":"\#(id)","read":false}}"# }
            // Each mark's reply counts about 900 + 256 bytes: after four, the budget is reached.
            let batch = "[" + [
                mark(1), mark(2), mark(3), #"{"method":"add","params":{"title":"Quiet"}}"#, mark(4), mark(5),
                #"{"id":6,"method":"ping"}"#,
            ].joined(separator: ",") + "]"

            let replies = try #require(try await connection.call(batch).arrayValue)

            #expect(replies.map { $0.integer("id") } == [1, 2, 3, 4, 5, 6])
            #expect(replies.prefix(4).allSatisfy { $0.member("result", "item", "title")?.stringValue == title })
            #expect(replies.suffix(2).allSatisfy { $0.integer("error", "code") == -32600 })
            let listed = try await connection.call(#"{"id":7,"method":"list"}"#)
            #expect(listed.member("result", "items")?.arrayValue?.compactMap { $0.member("title")?.stringValue } == [title, "Quiet"])
        }
    }

    /// Found by a hostile-input run: the connection's own `changed` lines wait behind its batch's line, and a batch
    /// allowed a budget's worth of replies, so their notifications passed the limit and a watcher that read promptly
    /// was cut off as a slow consumer.
    @Test("a watcher's own batch of adds with 900-character titles, against a 4096-byte budget: refused past half of it, no slow-consumer cut-off")
    func watcherOwnBatch() async throws {
        try await Self.withConnection { connection in
            #expect(try await connection.call(#"{"id":"w","method":"watch"}"#).integer("result", "revision") == 0)
            let title = String(repeating: "t", count: 900)
            let batch = "[" + (1...6).map { #"{"id":\#($0),"method":"add","params":{"title":"\#(title)"}}"# }.joined(separator: ",") + "]"
            try await connection.send(batch + "\n")

            var notified: [Int] = []
            var replies: [JSONValue] = []
            while replies.isEmpty {
                let line = try await connection.readJSON()
                #expect(line.member("method")?.stringValue != "closing", "cut off: \(line)")
                if let array = line.arrayValue { replies = array } else if let revision = line.integer("params", "revision") { notified.append(revision) }
            }

            // Each add counts twice (its reply and its notification): about 1156 bytes each, so two fit under 4096.
            let answered = replies.filter { $0.member("result") != nil }.count
            #expect(answered == 2)
            #expect(notified == Array(1...answered))
            #expect(replies.dropFirst(answered).allSatisfy { $0.integer("error", "code") == -32600 })
            #expect(try await connection.call(#"{"id":"p","method":"ping"}"#).member("result") == "pong")
        }
    }

    /// Found by review: a request held its own large id against the budget, then waited for room that only its own
    /// reply could free; the connection hung for good (and with it, shutdown).
    @Test("with a 4096-byte budget, requests with 3000- and 5000-character ids behind a ping are each answered, in order")
    func largeIDsAreAnswered() async throws {
        try await Self.withConnection { connection in
            let mid = String(repeating: "m", count: 3000)
            let big = String(repeating: "b", count: 5000)
            try await connection.send([
                #"{"id":1,"method":"ping"}"#, #"{"id":"\#(mid)","method":"ping"}"#,
                #"{"id":"\#(big)","method":"add","params":{"title":"Dune"}}"#, #"{"id":3,"method":"ping"}"#,
            ].joined(separator: "\n") + "\n")

            var ids: [String] = []
            for _ in 0..<4 {
                let reply = try await connection.readJSON()
                ids.append(reply.member("id")?.stringValue ?? reply.integer("id").map { "\($0)" } ?? "?")
            }

            #expect(ids == ["1", mid, big, "3"])
        }
    }
}
