import Foundation
import Testing

/// Batches (JSON-RPC 2.0 §6) and request ids (§4) over TCP.
@Suite struct BatchAndIDTests {
    @Test("a mixed batch gets one array with the answers in order, notifications left out but executed")
    func mixedBatch() async throws {
        try await withTestServer { server in
            let connection = try await server.connect()
            let batch = "[" + [
                #"{"id":1,"method":"ping"}"#,
                #"{"jsonrpc":"2.0","method":"add","params":{"title":"Quiet"}}"#,
                "42",
                #"{"id":2,"method":"add","params":{"title":"Dune"}}"#,
                #"{"id":3,"method":"nope"}"#,
                #"{"id":4,"method":"add","params":{"title":" "}}"#,
                #"{"id":5,"method":"list"}"#,
                #"{"jsonrpc":"1.0","id":6,"method":"ping"}"#,
            ].joined(separator: ",") + "]"
            let quiet = ExpectedLine.itemJSON(1, "Quiet", revision: 1)
            let dune = ExpectedLine.itemJSON(2, "Dune", revision: 2)
            let expected = "[" + [
                ExpectedLine.pong("1"),
                ExpectedLine.error("null", code: -32600, message: #"Invalid request: expected a JSON object like {\"id\":1,\"method\":\"ping\"}"#, reason: "invalid_request"),
                ExpectedLine.item("2", revision: 2, item: dune),
                ExpectedLine.methodNotFound("3", "nope"),
                ExpectedLine.error("4", code: 1, message: "Enter a title", reason: "invalid_title"),
                ExpectedLine.list("5", revision: 2, items: [quiet, dune]),
                ExpectedLine.error("6", code: -32600, message: #"Invalid request: \"jsonrpc\" must be \"2.0\""#, reason: "invalid_request"),
            ].joined(separator: ",") + "]"
            let reply = try await connection.exchange(batch)
            #expect(reply == expected)
            connection.close()
        }
    }

    @Test("a batch of one request gets an array of one answer")
    func batchOfOne() async throws {
        try await withTestServer { server in
            let connection = try await server.connect()
            #expect(try await connection.exchange(#"[{"id":1,"method":"ping"}]"#) == "[" + ExpectedLine.pong("1") + "]")
            connection.close()
        }
    }

    @Test("an empty batch gets a single -32600 object, not an array")
    func emptyBatch() async throws {
        try await withTestServer { server in
            let connection = try await server.connect()
            #expect(try await connection.exchange("[]") == ExpectedLine.error(
                "null", code: -32600, message: "Invalid request: empty batch", reason: "invalid_request"))
            #expect(try await connection.exchange(" [ ] ") == ExpectedLine.error(
                "null", code: -32600, message: "Invalid request: empty batch", reason: "invalid_request"))
            connection.close()
        }
    }

    @Test("a batch of only notifications gets no reply at all, but its mutations are applied")
    func allNotificationBatch() async throws {
        try await withTestServer { server in
            let connection = try await server.connect()
            try await connection.send(
                #"[{"method":"ping"},{"method":"add","params":{"title":"One"}},{"method":"add","params":{"title":"Two"}}]"# + "\n")
            // Had the batch been answered, its reply would come before this one.
            #expect(try await connection.exchange(#"{"id":9,"method":"list"}"#) == ExpectedLine.list(
                "9", revision: 2, items: [ExpectedLine.itemJSON(1, "One", revision: 1), ExpectedLine.itemJSON(2, "Two", revision: 2)]))
            connection.close()
        }
    }

    @Test("notifications get no reply, even failing ones and ones with bad params")
    func notifications() async throws {
        try await withTestServer { server in
            let connection = try await server.connect()
            try await connection.send([
                #"{"method":"ping"}"#,
                #"{"method":"nope"}"#,
                #"{"method":"add","params":{"title":" "}}"#,
                #"{"method":"get","params":{"id":"\#(ExpectedLine.wireID(5))"}}"#,
                #"{"method":"add","params":["Dune"]}"#,
                #"[{"method":"add","params":7}]"#,
                #"{"method":"add","params":{"title":"Dune"}}"#,
            ].joined(separator: "\n") + "\n")
            #expect(try await connection.exchange(#"{"id":1,"method":"list"}"#)
                == ExpectedLine.list("1", revision: 1, items: [ExpectedLine.itemJSON(1, "Dune", revision: 1)]))
            connection.close()
        }
    }

    @Test("ids come back exactly as sent", arguments: [
        "9007199254740993", "18446744073709551616", "-0", "1e2", "1.50", "-12", "0",
        #""x""#, #""""#, #""\u00e9 \"q\"""#, "null",
    ])
    func idsEchoed(_ id: String) async throws {
        try await withTestServer { server in
            let connection = try await server.connect()
            #expect(try await connection.exchange(#"{"id":\#(id),"method":"ping"}"#) == ExpectedLine.pong(id.replacingUnicodeEscape()))
            connection.close()
        }
    }

    @Test("ids in a batch are echoed exactly, each with its own answer")
    func idsInBatch() async throws {
        try await withTestServer { server in
            let connection = try await server.connect()
            let ids = ["18446744073709551616", #""x""#, "null", "-0", "1e2"]
            let batch = "[" + ids.map { #"{"id":\#($0),"method":"ping"}"# }.joined(separator: ",") + "]"
            #expect(try await connection.exchange(batch) == "[" + ids.map(ExpectedLine.pong).joined(separator: ",") + "]")
            connection.close()
        }
    }

    @Test("a request with id null is a request, not a notification: it is executed and answered")
    func nullIDIsARequest() async throws {
        try await withTestServer { server in
            let connection = try await server.connect()
            #expect(try await connection.exchange(#"{"id":null,"method":"add","params":{"title":"Dune"}}"#)
                == ExpectedLine.item("null", revision: 1, item: ExpectedLine.itemJSON(1, "Dune", revision: 1)))
            connection.close()
        }
    }

    @Test("the same id used twice is answered twice, in order")
    func repeatedID() async throws {
        try await withTestServer { server in
            let connection = try await server.connect()
            try await connection.send(
                #"{"id":1,"method":"add","params":{"title":"A"}}"# + "\n" + #"{"id":1,"method":"add","params":{"title":"B"}}"# + "\n")
            #expect(try await connection.nextLines(2) == [
                ExpectedLine.item("1", revision: 1, item: ExpectedLine.itemJSON(1, "A", revision: 1)),
                ExpectedLine.item("1", revision: 2, item: ExpectedLine.itemJSON(2, "B", revision: 2)),
            ])
            connection.close()
        }
    }
}

private extension String {
    /// The id as the server writes it back: its writer emits non-ASCII as UTF-8, not as `\u` escapes.
    func replacingUnicodeEscape() -> String {
        replacingOccurrences(of: #"\u00e9"#, with: "é")
    }
}
