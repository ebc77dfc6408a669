import ShelfTestSupport
import Testing

/// People connect with `telnet` as well as `nc`: its commands are dropped and its options refused, and the session
/// keeps working (protocol/PROTOCOL.md §1).
@Suite struct TelnetTests {
    @Test("after Ctrl-C in telnet (ff f4 ff fd 06) the server sends WONT TIMING-MARK (ff fc 06) and answers the next request")
    func interruptThenPing() async throws {
        try await withTestServer { server in
            let connection = try await server.connect()
            try await connection.send(bytes: [0xFF, 0xF4, 0xFF, 0xFD, 0x06])
            try await connection.send(#"{"id":1,"method":"ping"}"# + "\n")
            let expected = [0xFF, 0xFC, 0x06] + Array((ExpectedLine.pong("1") + "\n").utf8)
            var received: [UInt8] = []
            while received.count < expected.count {
                let bytes = try await connection.connection.read()
                if bytes.isEmpty { break }
                received += bytes
            }
            #expect(received == expected)
            connection.close()
        }
    }
}
