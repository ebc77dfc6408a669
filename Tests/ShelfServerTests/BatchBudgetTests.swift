import Foundation
import ShelfServer
import ShelfSockets
import Testing

/// A batch's replies against the reply budget (`--max-outbound-bytes`, protocol/PROTOCOL.md §10): a batch's line
/// is written whole, so once its replies hold the budget the rest of its requests are refused, not carried out.
@Suite struct BatchBudgetTests {
    /// Found by a hostile-input run: one line of 1000 `list`s of a 2 MB list grew shelfd to 4.4 GB, and the same on
    /// a larger list would take the machine's memory.
    @Test("with a 4096-byte budget, a batch of list, list, list, add, ping: two lists are answered, the rest refused with -32600 and the add not made")
    func refusedPastTheBudget() async throws {
        var configuration = ServerConfiguration(listen: HostPort(host: "127.0.0.1", port: 0))
        configuration.maxOutboundBytes = 4096
        try await withTestServer(configuration: configuration) { server in
            let connection = try await server.connect()
            defer { connection.close() }
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
}
