import Testing

/// `add` and `update` over TCP (protocol/PROTOCOL.md §5, §7, §9): the order in which their checks run, `removeTags`
/// without a count limit, and what counts as something to change.
@Suite struct UpdateRulesTests {
    private static let missing = ExpectedLine.wireID(0xFF)
    private static let item1 = ExpectedLine.wireID(1)

    private static func tagError(_ id: String) -> String {
        ExpectedLine.error(
            id, code: 10, message: #"Tag \"x y\" contains U+0020; tags hold no whitespace, control characters or commas"#,
            reason: "invalid_tags")
    }

    private static func invalidParams(_ id: String, _ detail: String) -> String {
        ExpectedLine.error(id, code: -32602, message: "Invalid params: \(detail)", reason: "invalid_params")
    }

    /// `{"id":1,…,"revision":R,"tags":["a"]}` and the like: item 1, titled `x`.
    private static func itemX(revision: Int, tags: [String]) -> String {
        let members = tags.isEmpty ? "" : #","tags":[\#(tags.map { "\"\($0)\"" }.joined(separator: ","))]"#
        return #"{"id":"\#(item1)","title":"x","isRead":false,"addedAt":"\#(ExpectedLine.addedAt(1))","revision":\#(revision)\#(members)}"#
    }

    /// Found by review: `add` checked the tags before the note, and `update` checked its tags only after finding the
    /// item, so a bad tag on a missing item was `2` (or `3` with a stale `expect`) where §7 says `10`.
    @Test("member rules run in the order author, url, note, tags, and before expect and whether the item exists")
    func orderOfChecks() async throws {
        try await withTestServer { server in
            let connection = try await server.connect()
            #expect(try await connection.exchange(#"{"id":1,"method":"add","params":{"title":"x","tags":["x y"],"note":"\u0007"}}"#)
                == ExpectedLine.error(
                    "1", code: 11, message: "Note contains a control character (U+0007); only newlines and tabs are allowed",
                    reason: "invalid_note"))
            for (n, tags) in [(2, #""tags":["x y"]"#), (3, #""addTags":["x y"]"#), (4, #""removeTags":["x y"]"#)] {
                #expect(try await connection.exchange(#"{"id":\#(n),"method":"update","params":{"id":"\#(Self.missing)",\#(tags)}}"#)
                    == Self.tagError("\(n)"))
                #expect(try await connection.exchange(#"{"id":\#(n),"method":"update","params":{"id":"\#(Self.missing)",\#(tags),"expect":5}}"#)
                    == Self.tagError("\(n)"))
            }
            // Too many tags once merged depends on the item: checked after it is found.
            let forty = (1...40).map { "\"t\($0)\"" }.joined(separator: ",")
            #expect(try await connection.exchange(#"{"id":5,"method":"update","params":{"id":"\#(Self.missing)","addTags":[\#(forty)]}}"#)
                == ExpectedLine.error("5", code: 2, message: "This item is no longer available", reason: "not_found", extra: #""id":"\#(Self.missing)""#))
            connection.close()
        }
    }

    /// Found by review: `removeTags` with 40 names was refused as `10 Too many tags: 40`.
    @Test("removeTags takes any number of tags: each is checked, none counted")
    func removeManyTags() async throws {
        try await withTestServer { server in
            let connection = try await server.connect()
            #expect(try await connection.exchange(#"{"id":1,"method":"add","params":{"title":"x","tags":["a"]}}"#)
                == ExpectedLine.item("1", revision: 1, item: Self.itemX(revision: 1, tags: ["a"])))
            let forty = (1...40).map { "\"t\($0)\"" }.joined(separator: ",")
            #expect(try await connection.exchange(#"{"id":2,"method":"update","params":{"id":"\#(Self.item1)","removeTags":[\#(forty)]}}"#)
                == ExpectedLine.item("2", revision: 1, item: Self.itemX(revision: 1, tags: ["a"])))
            #expect(try await connection.exchange(#"{"id":3,"method":"update","params":{"id":"\#(Self.item1)","removeTags":[\#(forty),"A"]}}"#)
                == ExpectedLine.item("3", revision: 2, item: Self.itemX(revision: 2, tags: [])))
            connection.close()
        }
    }

    /// Found by review: `tags: null` and `addTags: []` were accepted as changes that could change nothing, and
    /// `tags: null` with `addTags` escaped the "not both" error.
    @Test("tags null clears the tags and is not taken with addTags; addTags or removeTags empty alone is nothing to change")
    func nothingToChange() async throws {
        try await withTestServer { server in
            let connection = try await server.connect()
            #expect(try await connection.exchange(#"{"id":1,"method":"add","params":{"title":"x","tags":["a","b"]}}"#)
                == ExpectedLine.item("1", revision: 1, item: Self.itemX(revision: 1, tags: ["a", "b"])))
            let nothing = "update needs something to change: title, author, url, note, tags, addTags or removeTags"
            let notBoth = #"send either \"tags\" (the whole set) or \"addTags\"/\"removeTags\", not both"#
            #expect(try await connection.exchange(#"{"id":2,"method":"update","params":{"id":"\#(Self.item1)","addTags":[]}}"#)
                == Self.invalidParams("2", nothing))
            #expect(try await connection.exchange(#"{"id":3,"method":"update","params":{"id":"\#(Self.item1)","removeTags":[],"addTags":null}}"#)
                == Self.invalidParams("3", nothing))
            #expect(try await connection.exchange(#"{"id":4,"method":"update","params":{"id":"\#(Self.item1)","tags":null,"addTags":["c"]}}"#)
                == Self.invalidParams("4", notBoth))
            #expect(try await connection.exchange(#"{"id":5,"method":"update","params":{"id":"\#(Self.item1)","tags":null}}"#)
                == ExpectedLine.item("5", revision: 2, item: Self.itemX(revision: 2, tags: [])))
            // Already without tags: nothing differs, nothing is written.
            #expect(try await connection.exchange(#"{"id":6,"method":"update","params":{"id":"\#(Self.item1)","tags":null}}"#)
                == ExpectedLine.item("6", revision: 2, item: Self.itemX(revision: 2, tags: [])))
            connection.close()
        }
    }
}
