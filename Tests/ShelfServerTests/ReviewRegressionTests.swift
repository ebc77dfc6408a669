import Foundation
import ShelfClient
import ShelfCore
import ShelfJSON
import ShelfServer
import ShelfSockets
import ShelfWire
import Testing
import ShelfTestSupport

extension MemoryHeavy {
    /// Regressions found in review, each with the exact input that showed it.
    @Suite struct ReviewRegressionTests {
        static func configuration(maxOutboundBytes: Int = 8 << 20) -> ServerConfiguration {
            ServerConfiguration(listen: HostPort(host: "127.0.0.1", port: 0), maxOutboundBytes: maxOutboundBytes)
        }

        @Test("a batch whose reads exceed the reply budget is still answered, the reads past it refused (it used to deadlock its session)")
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
                // Past the budget the rest of a batch is refused (`BatchBudgetTests` has the details).
                #expect(replies.prefix(2).allSatisfy { $0.objectValue?["result"]?.objectValue?["items"]?.arrayValue?.count == 3 })
                #expect(replies.last?.objectValue?["error"]?.objectValue?["code"] == -32600)
                #expect(try await connection.exchange(#"{"id":9,"method":"ping"}"#) == #"{"jsonrpc":"2.0","id":9,"result":"pong"}"#)
            }
        }

        @Test("a client that pipelines 30 large lists and 5 adds, then vanishes, gets none of the adds carried out")
        func vanishedPeerStopsTheSession() async throws {
            try await withRecordingTestServer(configuration: Self.configuration(maxOutboundBytes: 1 << 20), seconds: 60) { server, log in
                // A list of about 1 MB.
                let setup = try await server.connect()
                let title = String(repeating: "v", count: 990)
                for batch in 0..<5 {
                    let adds = (0..<200).map { #"{"id":\#($0),"method":"add","params":{"title":"\#(title)\#(batch * 200 + $0)"}}"# }
                    _ = try await setup.exchange("[" + adds.joined(separator: ",") + "]")
                }
                #expect(try await setup.exchange(#"{"id":"h","method":"hello"}"#) == ExpectedLine.hello(#""h""#, revision: 1000))

                // 30 MB of replies owed, far more than the socket buffers hold, then five changes.
                let vanishing = try await server.connect()
                let lists = (1...30).map { #"{"id":\#($0),"method":"list"}"# }
                let adds = (1...5).map { #"{"id":"a\#($0)","method":"add","params":{"title":"after \#($0)"}}"# }
                try await vanishing.send((lists + adds).joined(separator: "\n") + "\n")
                // The server has read the lines once replies flow; closing with them unread sends a reset.
                _ = try await vanishing.connection.read(maxBytes: 1)
                vanishing.close()
                try await waitUntil { log.count(containing: "closed (") >= 1 }

                // Whatever the session carried out after the reset could be answered to nobody: it stopped.
                #expect(try await setup.exchange(#"{"id":"h","method":"hello"}"#) == ExpectedLine.hello(#""h""#, revision: 1000))
                setup.close()
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

    /// Consecutive mutations in one read are submitted to the list in one call: the answers must be exactly those of
    /// submitting them one at a time.
    @Suite struct MutationRunTests {
        @Test("100 adds, a stale expect, a toggle and a remove in one write: in order, with the same answers as one by one")
        func runInOneWrite() async throws {
            try await withTestServer { server in
                let connection = try await server.connect()
                defer { connection.close() }
                var script = ""
                for n in 1...100 { script += #"{"id":\#(n),"method":"add","params":{"title":"Book \#(n)"}}"# + "\n" }
                script += #"{"id":101,"method":"add","params":{"title":"Late","expect":3}}"# + "\n"
                script += #"{"id":102,"method":"toggle","params":{"id":"\#(TestServer.id(1).wireString)"}}"# + "\n"
                script += #"{"id":103,"method":"remove","params":{"id":"\#(TestServer.id(2).wireString)"}}"# + "\n"
                script += #"{"id":104,"method":"add","params":{"title":"   "}}"# + "\n"
                try await connection.send(script)
                for n in 1...100 {
                    let reply = try await connection.readJSON()
                    #expect(reply.objectValue?["id"] == .number(JSONNumber(n)))
                    #expect(reply.objectValue?["result"]?.objectValue?["revision"] == .number(JSONNumber(n)))
                }
                let conflict = try await connection.readJSON()
                #expect(conflict.objectValue?["error"]?.objectValue?["code"] == .number(JSONNumber(3)))
                #expect(conflict.objectValue?["error"]?.objectValue?["data"]?.objectValue?["revision"] == .number(JSONNumber(100)))
                let toggled = try await connection.readJSON()
                #expect(toggled.objectValue?["result"]?.objectValue?["revision"] == .number(JSONNumber(101)))
                #expect(toggled.objectValue?["result"]?.objectValue?["item"]?.objectValue?["isRead"] == .bool(true))
                let removed = try await connection.readJSON()
                #expect(removed.objectValue?["result"]?.objectValue?["revision"] == .number(JSONNumber(102)))
                let blank = try await connection.readJSON()
                #expect(blank.objectValue?["error"]?.objectValue?["message"] == .string("Enter a title"))
                let list = try await connection.call(#"{"id":"l","method":"list"}"#)
                let items = try #require(list.objectValue?["result"]?.objectValue?["items"]?.arrayValue)
                #expect(items.count == 99)
                #expect(items.first?.objectValue?["title"] == .string("Book 1"))
                #expect(items.dropFirst().first?.objectValue?["title"] == .string("Book 3"))
            }
        }
    }
}
