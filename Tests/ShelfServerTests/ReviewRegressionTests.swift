import Foundation
import ShelfClient
import ShelfCore
import ShelfJSON
import ShelfServer
import ShelfSockets
import ShelfWire
import Testing

/// Regressions found in review, each with the exact input that showed it.
@Suite struct ReviewRegressionTests {
    static func configuration(maxOutboundBytes: Int = 8 << 20) -> ServerConfiguration {
        ServerConfiguration(listen: HostPort(host: "127.0.0.1", port: 0), maxOutboundBytes: maxOutboundBytes)
    }

    @Test("a batch whose reads exceed the reply budget is still answered (it used to deadlock its session)")
    func batchOverBudget() async throws {
        try await withTestServer(configuration: Self.configuration(maxOutboundBytes: 4096)) { server in
            let connection = try await server.connect()
            defer { connection.close() }
            let title = String(repeating: "t", count: 900)
            for n in 1...3 {
                _ = try await connection.exchange(#"{"id":\#(n),"method":"add","params":{"title":"\#(title)"}}"#)
            }
            let reply = try await connection.exchange(
                #"[{"id":"a","method":"list"},{"id":"b","method":"list"},{"id":"c","method":"list"}]"#)
            let replies = try #require(try JSONParser.parse(Array(reply.utf8)).arrayValue)
            #expect(replies.count == 3)
            #expect(replies.allSatisfy { $0.objectValue?["result"]?.objectValue?["items"]?.arrayValue?.count == 3 })
            #expect(try await connection.exchange(#"{"id":9,"method":"ping"}"#) == #"{"jsonrpc":"2.0","id":9,"result":"pong"}"#)
        }
    }

    @Test("a batch of more than 1000 requests gets one -32600 and the connection keeps working")
    func batchTooLarge() async throws {
        try await withTestServer { server in
            let connection = try await server.connect()
            defer { connection.close() }
            let batch = "[" + Array(repeating: "1", count: 1001).joined(separator: ",") + "]"
            #expect(try await connection.exchange(batch)
                == #"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid request: a batch of 1001 requests; the limit is 1000","data":{"reason":"invalid_request"}}}"#)
            let full = "[" + Array(repeating: #"{"id":1,"method":"ping"}"#, count: 1000).joined(separator: ",") + "]"
            let reply = try await connection.exchange(full)
            #expect(try JSONParser.parse(Array(reply.utf8)).arrayValue?.count == 1000)
        }
    }

    @Test("an unknown method's name is cut to 64 characters in the error message")
    func longMethodName() async throws {
        try await withTestServer { server in
            let connection = try await server.connect()
            defer { connection.close() }
            let name = String(repeating: "m", count: 100_000)
            let reply = try await connection.exchange(#"{"id":1,"method":"\#(name)"}"#)
            #expect(reply.count < 400)
            #expect(reply.contains(#"Method not found: \""# + String(repeating: "m", count: 64) + #"…\" (methods"#))
        }
    }

    @Test("a client call whose line the server cannot read fails with the server's error instead of hanging")
    func clientGetsNullIDError() async throws {
        var configuration = Self.configuration()
        configuration.maxLineBytes = 1024
        try await withTestServer(configuration: configuration) { server in
            let client = try await ShelfClient.connect(to: server.address)
            do {
                _ = try await client.apply(.add(title: String(repeating: "x", count: 2000)))
                Issue.record("expected an error")
            } catch {
                guard case ClientError.server(let rpc)? = error as? ClientError else {
                    Issue.record("expected a server error, got \(error)")
                    return
                }
                #expect(rpc.code == -32600)
            }
            try await client.ping()
            await client.close()
        }
    }
}
