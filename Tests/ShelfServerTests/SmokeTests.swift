import ShelfJSON
import ShelfWire
import Testing

@Suite struct SmokeTests {
    @Test("a server on port 0 answers ping over real TCP")
    func pingOverTCP() async throws {
        try await withTestServer { server in
            let connection = try await server.connect()
            let reply = try await connection.call(#"{"id":1,"method":"ping"}"#)
            #expect(reply == JSONValue.object(JSONObject([("jsonrpc", "2.0"), ("id", 1), ("result", "pong")])))
            connection.close()
        }
    }
}
