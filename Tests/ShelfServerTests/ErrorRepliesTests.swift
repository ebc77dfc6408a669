import ShelfWire
import Testing

/// Error replies over TCP (protocol/PROTOCOL.md, "Errors"): each gets the right code, message and data, and
/// none of them closes the connection or changes the list.
@Suite struct ErrorRepliesTests {
    /// One request line and the exact reply line it must get.
    struct Case: Sendable, CustomTestStringConvertible {
        let request: String
        let reply: String
        var testDescription: String { request }
    }

    private static let unknownID = ExpectedLine.wireID(0xFF)

    private static func invalidParams(_ detail: String) -> String {
        ExpectedLine.error("7", code: -32602, message: "Invalid params: \(detail)", reason: "invalid_params")
    }

    static let invalidParamsCases: [Case] = [
        Case(request: #"{"id":7,"method":"add","params":{"title":5}}"#,
             reply: invalidParams(#"param \"title\" must be a string"#)),
        Case(request: #"{"id":7,"method":"add"}"#,
             reply: invalidParams(#"missing param \"title\" (a string)"#)),
        Case(request: #"{"id":7,"method":"add","params":{"titel":"Dune"}}"#,
             reply: invalidParams(#"unknown param \"titel\" for add (takes: addedAt, author, expect, id, isRead, note, readAt, tags, title, url)"#)),
        Case(request: #"{"id":7,"method":"ping","params":{"x":1}}"#,
             reply: invalidParams(#"unknown param \"x\" for ping (takes: none)"#)),
        Case(request: #"{"id":7,"method":"get","params":{"id":"not-a-uuid"}}"#,
             reply: invalidParams(#"param \"id\" must be a UUID like 3fa2b1c4-0000-4000-8000-000000000000"#)),
        Case(request: #"{"id":7,"method":"get","params":{"id":42}}"#,
             reply: invalidParams(#"param \"id\" must be a string"#)),
        Case(request: #"{"id":7,"method":"list","params":{"filter":"done"}}"#,
             reply: invalidParams(#"param \"filter\" must be \"all\", \"read\" or \"unread\""#)),
        Case(request: #"{"id":7,"method":"mark","params":{"id":"\#(unknownID)","read":"yes"}}"#,
             reply: invalidParams(#"param \"read\" must be true or false"#)),
        Case(request: #"{"id":7,"method":"mark","params":{"id":"\#(unknownID)"}}"#,
             reply: invalidParams(#"missing param \"read\" (true or false)"#)),
        Case(request: #"{"id":7,"method":"add","params":{"title":"Dune","expect":-1}}"#,
             reply: invalidParams("param \\\"expect\\\" must be a whole number from 0 to 18446744073709551615")),
        Case(request: #"{"id":7,"method":"add","params":{"title":"Dune","expect":"0"}}"#,
             reply: invalidParams(#"param \"expect\" must be a revision number"#)),
        Case(request: #"{"id":7,"method":"list","params":["all"]}"#,
             reply: ExpectedLine.error(
                "7", code: -32602, message: #"Invalid params: \"params\" must be an object"#, reason: "invalid_params")),
    ]

    @Test("params of the wrong type, missing, unknown or malformed get -32602 naming the param", arguments: invalidParamsCases)
    func invalidParams(_ example: Case) async throws {
        try await withTestServer { server in
            let connection = try await server.connect()
            #expect(try await connection.exchange(example.request) == example.reply)
            #expect(try await connection.exchange(#"{"id":8,"method":"list"}"#) == ExpectedLine.list("8", revision: 0, items: []))
            connection.close()
        }
    }

    static let invalidRequestCases: [Case] = [
        Case(request: #"{"jsonrpc":"1.0","id":7,"method":"ping"}"#,
             reply: ExpectedLine.error("7", code: -32600, message: #"Invalid request: \"jsonrpc\" must be \"2.0\""#, reason: "invalid_request")),
        Case(request: #"{"jsonrpc":2,"id":7,"method":"ping"}"#,
             reply: ExpectedLine.error("7", code: -32600, message: #"Invalid request: \"jsonrpc\" must be \"2.0\""#, reason: "invalid_request")),
        Case(request: #"{"id":7,"method":5}"#,
             reply: ExpectedLine.error("7", code: -32600, message: #"Invalid request: \"method\" must be a string"#, reason: "invalid_request")),
        Case(request: #"{"id":7}"#,
             reply: ExpectedLine.error("7", code: -32600, message: #"Invalid request: \"method\" must be a string"#, reason: "invalid_request")),
        Case(request: #"{"id":[7],"method":"ping"}"#,
             reply: ExpectedLine.error("null", code: -32600, message: "Invalid request: id must be a string, a number or null", reason: "invalid_request")),
        Case(request: #"{"id":true,"method":"ping"}"#,
             reply: ExpectedLine.error("null", code: -32600, message: "Invalid request: id must be a string, a number or null", reason: "invalid_request")),
        Case(request: "42",
             reply: ExpectedLine.error("null", code: -32600, message: #"Invalid request: expected a JSON object like {\"id\":1,\"method\":\"ping\"}"#, reason: "invalid_request")),
        Case(request: #""ping""#,
             reply: ExpectedLine.error("null", code: -32600, message: #"Invalid request: expected a JSON object like {\"id\":1,\"method\":\"ping\"}"#, reason: "invalid_request")),
    ]

    @Test("requests that are not valid JSON-RPC 2.0 get -32600", arguments: invalidRequestCases)
    func invalidRequest(_ example: Case) async throws {
        try await withTestServer { server in
            let connection = try await server.connect()
            #expect(try await connection.exchange(example.request) == example.reply)
            #expect(try await connection.exchange(#"{"id":8,"method":"ping"}"#) == ExpectedLine.pong("8"))
            connection.close()
        }
    }

    static let parseErrorCases: [Case] = [
        Case(request: #"{"id":1,"method":"#,
             reply: ExpectedLine.error("null", code: -32700, message: "Parse error: unexpected end of input", reason: "parse_error")),
        Case(request: #"{"id":1,"method":"ping"}}"#,
             reply: ExpectedLine.error("null", code: -32700, message: "Parse error: unexpected data after the JSON value at byte 24", reason: "parse_error")),
        Case(request: #"{id:1}"#,
             reply: ExpectedLine.error("null", code: -32700, message: "Parse error: unexpected character 'i' at byte 1", reason: "parse_error")),
        Case(request: #"{"id":01,"method":"ping"}"#,
             reply: ExpectedLine.error("null", code: -32700, message: "Parse error: invalid number at byte 6", reason: "parse_error")),
    ]

    @Test("malformed JSON gets -32700 with id null and the same connection keeps working", arguments: parseErrorCases)
    func parseError(_ example: Case) async throws {
        try await withTestServer { server in
            let connection = try await server.connect()
            #expect(try await connection.exchange(example.request) == example.reply)
            #expect(try await connection.exchange(#"{"id":2,"method":"ping"}"#) == ExpectedLine.pong("2"))
            connection.close()
        }
    }

    @Test("an unknown method gets -32601 listing the known methods")
    func unknownMethod() async throws {
        try await withTestServer { server in
            let connection = try await server.connect()
            let frobnicate = try await connection.exchange(#"{"id":1,"method":"frobnicate"}"#)
            #expect(frobnicate == ExpectedLine.methodNotFound("1", "frobnicate"))
            // Method names are case-sensitive.
            let upper = try await connection.exchange(#"{"id":2,"method":"PING"}"#)
            #expect(upper == ExpectedLine.methodNotFound("2", "PING"))
            connection.close()
        }
    }

    @Test("a blank title gets code 1 \"Enter a title\" and nothing is added")
    func blankTitle() async throws {
        try await withTestServer { server in
            let connection = try await server.connect()
            for (id, title) in [(1, ""), (2, "   "), (3, #"\t\n "#)] {
                #expect(try await connection.exchange(#"{"id":\#(id),"method":"add","params":{"title":"\#(title)"}}"#)
                    == ExpectedLine.error("\(id)", code: 1, message: "Enter a title", reason: "invalid_title"))
            }
            #expect(try await connection.exchange(#"{"id":4,"method":"list"}"#) == ExpectedLine.list("4", revision: 0, items: []))
            // No id was used up by the refused titles.
            #expect(try await connection.exchange(#"{"id":5,"method":"add","params":{"title":"  Dune  "}}"#)
                == ExpectedLine.item("5", revision: 1, item: ExpectedLine.itemJSON(1, "Dune", revision: 1)))
            connection.close()
        }
    }

    @Test("a title with a control character or over 1000 characters gets code 1 naming the problem")
    func badTitles() async throws {
        try await withTestServer { server in
            let connection = try await server.connect()
            #expect(try await connection.exchange(#"{"id":1,"method":"add","params":{"title":"a\u0007b"}}"#) == ExpectedLine.error(
                "1", code: 1, message: "Title contains a control character (U+0007); remove it and try again", reason: "invalid_title"))
            let long = String(repeating: "é", count: 1_001)
            #expect(try await connection.exchange(#"{"id":2,"method":"add","params":{"title":"\#(long)"}}"#) == ExpectedLine.error(
                "2", code: 1, message: "Title is too long: 1001 characters, the limit is 1000", reason: "invalid_title"))
            // One character of 100,000 combining accents: 200,001 bytes.
            let heavy = "e" + String(repeating: "\u{301}", count: 100_000)
            #expect(try await connection.exchange(#"{"id":3,"method":"add","params":{"title":"\#(heavy)"}}"#) == ExpectedLine.error(
                "3", code: 1, message: "Title is too long: 200001 bytes of UTF-8, the limit is 32768", reason: "invalid_title"))
            connection.close()
        }
    }

    @Test("an unknown item id gets code 2 with data.id, for reads and every mutation")
    func unknownItem() async throws {
        try await withTestServer { server in
            let connection = try await server.connect()
            let id = Self.unknownID
            let requests = [
                #"{"id":1,"method":"get","params":{"id":"\#(id)"}}"#,
                #"{"id":2,"method":"mark","params":{"id":"\#(id)","read":true}}"#,
                #"{"id":3,"method":"toggle","params":{"id":"\#(id)"}}"#,
                #"{"id":4,"method":"rename","params":{"id":"\#(id)","title":"x"}}"#,
                #"{"id":5,"method":"remove","params":{"id":"\#(id.uppercased())"}}"#,
            ]
            for (index, request) in requests.enumerated() {
                #expect(try await connection.exchange(request) == ExpectedLine.error(
                    "\(index + 1)", code: 2, message: "This item is no longer available", reason: "not_found",
                    extra: #""id":"\#(id)""#))
            }
            #expect(try await connection.exchange(#"{"id":6,"method":"hello"}"#) == ExpectedLine.hello("6", revision: 0))
            connection.close()
        }
    }

    @Test("an item removed by one request is not found by the next")
    func removedItem() async throws {
        try await withTestServer { server in
            let connection = try await server.connect()
            let id = ExpectedLine.wireID(1)
            try await connection.send(
                #"{"id":1,"method":"add","params":{"title":"Dune"}}"# + "\n"
                    + #"{"id":2,"method":"remove","params":{"id":"\#(id)"}}"# + "\n"
                    + #"{"id":3,"method":"get","params":{"id":"\#(id)"}}"# + "\n")
            #expect(try await connection.nextLines(3) == [
                ExpectedLine.item("1", revision: 1, item: ExpectedLine.itemJSON(1, "Dune", revision: 1)),
                ExpectedLine.result("2", #"{"revision":2,"id":"\#(id)"}"#),
                ExpectedLine.error("3", code: 2, message: "This item is no longer available", reason: "not_found", extra: #""id":"\#(id)""#),
            ])
            connection.close()
        }
    }
}
