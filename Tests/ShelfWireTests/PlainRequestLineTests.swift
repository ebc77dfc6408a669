import ShelfJSON
import Testing
@testable import ShelfWire

/// `PlainRequestLine` must give exactly what the general path (`IncomingMessage.decodeTree`) gives for every line it
/// takes, and leave every other line to it.
@Suite struct PlainRequestLineTests {
    static let takenLines = [
        #"{"jsonrpc":"2.0","id":1,"method":"add","params":{"title":"Dune"}}"#,
        #"{"id":"a-1","method":"ping"}"#,
        #"{"method":"add","params":{"title":"Dune"}}"#,
        #"{"jsonrpc":"2.0","id":null,"method":"list","params":{}}"#,
        #"{"params":{"id":"00000000-0000-0000-0000-000000000001","read":true,"expect":12},"method":"mark","id":-0}"#,
        #" { "jsonrpc" : "2.0" , "id" : 18446744073709551616 , "method" : "rename" , "params" : { "title" : "x" } } "#,
        #"{"id":7,"method":"get","params":{"id":null,"read":false}}"#,
        #"{"id":7,"method":"","params":{"title":""}}"#,
        #"{"id":7,"method":"nope","params":{"x":1}}"#,
        #"{"id":1,"method":"add","params":{"title":"a","title":"b"}}"#,
    ]

    static let otherLines = [
        #"{"id":1,"method":"add","params":{"title":"Caf\u00e9"}}"#,
        #"{"id":1,"method":"add","params":{"title":"Café"}}"#,
        #"{"id":1,"method":"add","params":{"title":"a\"b"}}"#,
        #"{"id":1.5,"method":"ping"}"#,
        #"{"id":1e3,"method":"ping"}"#,
        #"{"id":01,"method":"ping"}"#,
        #"{"id":true,"method":"ping"}"#,
        #"{"id":1,"id":2,"method":"ping"}"#,
        #"{"id":1,"method":"add","params":{"title":["a"]}}"#,
        #"{"id":1,"method":"add","params":[]}"#,
        #"{"id":1,"method":"add","params":null}"#,
        #"{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}"#,
        #"{"jsonrpc":"1.0","id":1,"method":"ping"}"#,
        #"{"id":1,"method":"ping","extra":1}"#,
        #"{"id":1}"#,
        #"{"id":1,"method":5}"#,
        "{\"id\":1,\t\"method\":\"ping\"}",
        "{\"id\":1,\"method\":\"ping\"}\r",
        #"{"id":1,"method":"ping"} x"#,
        #"{"id":1,"method":"ping""#,
        #"[{"id":1,"method":"ping"}]"#,
        "",
        "{}",
    ]

    @Test("lines in the subset are read directly, into the request the general path gives", arguments: takenLines)
    func taken(line: String) throws {
        let bytes = Array(line.utf8)
        let plain = try #require(bytes.withUnsafeBufferPointer { PlainRequestLine.decode($0) })
        #expect(IncomingMessage.single(.request(plain)) == IncomingMessage.decodeTree(line: bytes))
        #expect(IncomingMessage.decode(line: bytes) == IncomingMessage.decodeTree(line: bytes))
    }

    @Test("everything else is left to the general path, which answers it as before", arguments: otherLines)
    func leftToTheTree(line: String) {
        let bytes = Array(line.utf8)
        #expect(bytes.withUnsafeBufferPointer { PlainRequestLine.decode($0) } == nil)
        #expect(IncomingMessage.decode(line: bytes) == IncomingMessage.decodeTree(line: bytes))
    }

    @Test("every one-byte deletion, replacement and insertion of the subset's lines decodes as the general path does")
    func mutations() {
        let replacements: [UInt8] = Array("\"\\{}[],: 0-9aetn.E".utf8) + [0x00, 0x09, 0x0D, 0x7F, 0xC3, 0xFF]
        var checked = 0
        var takenDirectly = 0
        for seed in Self.takenLines.map({ Array($0.utf8) }) {
            for line in OneByteEdits.of(seed, using: replacements) {
                let plain = line.withUnsafeBufferPointer { PlainRequestLine.decode($0) }
                if let plain {
                    takenDirectly += 1
                    #expect(IncomingMessage.single(.request(plain)) == IncomingMessage.decodeTree(line: line),
                            "\(String(decoding: line, as: UTF8.self))")
                }
                checked += 1
            }
        }
        // Both kinds occur, so the comparison above is not vacuous.
        #expect(checked > 10_000)
        #expect(takenDirectly > 1_000)
        #expect(takenDirectly < checked / 2)
    }

    /// `{"id":1,"method":"add","params":{"k0":1,"k1":1,…}}` with `count` params (90,000 make a line of 978,924 bytes).
    static func manyKeysLine(_ count: Int, key: (Int) -> String = { "k\($0)" }) -> [UInt8] {
        Array((#"{"id":1,"method":"add","params":{"# + (0..<count).map { #""\#(key($0))":1"# }.joined(separator: ",") + "}}").utf8)
    }

    @Test("a line whose params have 90,000 distinct keys is read in one pass and answered -32602 naming the first")
    func ninetyThousandKeys() throws {
        let line = Self.manyKeysLine(90_000)
        let plain = try #require(line.withUnsafeBufferPointer { PlainRequestLine.decode($0) })
        #expect(plain.params.count == 90_000)
        #expect(IncomingMessage.single(.request(plain)) == IncomingMessage.decodeTree(line: line))
        let detail = #"unknown param "k0" for add (takes: addedAt, author, expect, id, isRead, note, readAt, tags, title, url)"#
        #expect(MethodCall.decode(plain) == .failure(RPCError(.invalidParams, "Invalid params: \(detail)")))
    }

    @Test("params with a key repeated 90,000 times decode as the general path does: every member kept, the last wins")
    func repeatedKeyAtLargeCounts() throws {
        let line = Array((#"{"id":1,"method":"add","params":{"# + String(repeating: #""title":"a","#, count: 89_999) + #""title":"b"}}"#).utf8)
        let plain = try #require(line.withUnsafeBufferPointer { PlainRequestLine.decode($0) })
        #expect(plain.params.count == 90_000)
        #expect(plain.params["title"] == .string("b"))
        #expect(IncomingMessage.single(.request(plain)) == IncomingMessage.decodeTree(line: line))
        #expect(MethodCall.decode(plain) == .success(.mutate(.add(title: "b"), expect: nil)))
    }
}
