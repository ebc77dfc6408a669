import ShelfJSON
import ShelfWire
import Testing

/// Regression: a read pipelined before a write used to be evaluated when its reply was due, so it could already
/// show the later write (`hello` said revision 2, then the earlier `add` reply said 1).
@Suite struct PipelinedReadOrderTests {
    @Test("a read pipelined before a write never shows that write")
    func readBeforeWrite() async throws {
        try await withTestServer { server in
            let connection = try await server.connect()
            var script = ""
            for round in 0..<200 {
                script += #"{"id":\#(2 * round),"method":"hello"}"# + "\n"
                script += #"{"id":\#(2 * round + 1),"method":"add","params":{"title":"Book \#(round)"}}"# + "\n"
            }
            try await connection.send(script)
            var last: UInt64 = 0
            for round in 0..<200 {
                let hello = try await connection.readJSON()
                let added = try await connection.readJSON()
                let helloRevision = try #require(hello.objectValue?["result"]?.objectValue?["revision"]?.numberValue?.uint64)
                let addRevision = try #require(added.objectValue?["result"]?.objectValue?["revision"]?.numberValue?.uint64)
                #expect(helloRevision == UInt64(round), "hello \(round) saw revision \(helloRevision)")
                #expect(addRevision == UInt64(round + 1))
                #expect(helloRevision >= last)
                last = addRevision
            }
            connection.close()
        }
    }

    @Test("a read pipelined after a write shows it, also inside one batch")
    func readAfterWriteInBatch() async throws {
        try await withTestServer { server in
            let connection = try await server.connect()
            let reply = try await connection.call(
                #"[{"id":1,"method":"list"},{"id":2,"method":"add","params":{"title":"Dune"}},{"id":3,"method":"hello"}]"#)
            let replies = try #require(reply.arrayValue)
            #expect(replies.count == 3)
            #expect(replies[0].objectValue?["result"]?.objectValue?["revision"] == .number(JSONNumber(0)))
            #expect(replies[2].objectValue?["result"]?.objectValue?["revision"] == .number(JSONNumber(1)))
            connection.close()
        }
    }
}
