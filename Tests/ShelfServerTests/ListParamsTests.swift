import Testing

/// `list`'s params over TCP (protocol/PROTOCOL.md §5): `query`'s limit, `tag` in stored form, and `null` as absent.
@Suite struct ListParamsTests {
    private static func invalidParams(_ id: String, _ detail: String) -> String {
        ExpectedLine.error(id, code: -32602, message: "Invalid params: \(detail)", reason: "invalid_params")
    }

    /// Found by an attack run: 200 items whose note is "a"×9999 and a `list` with `query` "a"×4999+"b" held the
    /// event loop for 113 s (a ping on another connection waited that long).
    @Test("a query over 256 characters or 1 KiB is refused naming the limit; the longest one searches 200 long notes while another connection is served")
    func queryLimit() async throws {
        try await withTestServer { server in
            let connection = try await server.connect()
            let note = String(repeating: "a", count: 9_999)
            var adds = ""
            for n in 1...200 { adds += #"{"id":\#(n),"method":"add","params":{"title":"t","note":"\#(note)"}}"# + "\n" }
            try await connection.send(adds)
            for _ in 1...200 { _ = try await connection.readLine() }
            let attack = String(repeating: "a", count: 4_999) + "b"
            #expect(try await connection.exchange(#"{"id":"q","method":"list","params":{"query":"\#(attack)"}}"#)
                == Self.invalidParams(#""q""#, #"param \"query\" is too long: 5000 bytes of UTF-8, the limit is 1024"#))
            let accents = String(repeating: "e\u{301}", count: 257)
            #expect(try await connection.exchange(#"{"id":"c","method":"list","params":{"query":"\#(accents)"}}"#)
                == Self.invalidParams(#""c""#, #"param \"query\" is too long: 257 characters, the limit is 256"#))
            let longest = String(repeating: "a", count: 255) + "b"
            try await connection.send(#"{"id":"l","method":"list","params":{"query":"\#(longest)"}}"# + "\n")
            let other = try await server.connect()
            #expect(try await other.exchange(#"{"id":1,"method":"ping"}"#) == ExpectedLine.pong("1"))
            #expect(try await connection.readLine() == ExpectedLine.list(#""l""#, revision: 200, items: []))
            other.close()
            connection.close()
        }
    }

    /// Found by review: `tag:" A "` matched nothing though stored tags are trimmed and folded, `tag:""` listed
    /// nothing, and `filter: null` was -32602 while every other list param took `null` as absent.
    @Test("a list tag is trimmed and folded like a stored one, an invalid one is -32602, and filter null is all")
    func tagsAndNull() async throws {
        try await withTestServer { server in
            let connection = try await server.connect()
            let item = #"{"id":"\#(ExpectedLine.wireID(1))","title":"x","isRead":false,"addedAt":"\#(ExpectedLine.addedAt(1))","revision":1,"tags":["a"]}"#
            #expect(try await connection.exchange(#"{"id":1,"method":"add","params":{"title":"x","tags":["a"]}}"#)
                == ExpectedLine.item("1", revision: 1, item: item))
            #expect(try await connection.exchange(#"{"id":2,"method":"list","params":{"tag":" A "}}"#)
                == ExpectedLine.list("2", revision: 1, items: [item]))
            #expect(try await connection.exchange(#"{"id":3,"method":"list","params":{"tag":["a"," A\t"]}}"#)
                == ExpectedLine.list("3", revision: 1, items: [item]))
            #expect(try await connection.exchange(#"{"id":4,"method":"list","params":{"tag":""}}"#)
                == Self.invalidParams("4", #"param \"tag\": A tag is empty"#))
            #expect(try await connection.exchange(#"{"id":5,"method":"list","params":{"tag":["a","x y"]}}"#)
                == Self.invalidParams("5", #"param \"tag\": Tag \"x y\" contains U+0020; tags hold no whitespace, control characters or commas"#))
            #expect(try await connection.exchange(#"{"id":6,"method":"list","params":{"filter":null,"query":null,"tag":null,"sort":null,"limit":null,"cursor":null}}"#)
                == ExpectedLine.list("6", revision: 1, items: [item]))
            connection.close()
        }
    }
}
