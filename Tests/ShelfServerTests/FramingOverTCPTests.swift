import ShelfServer
import ShelfSockets
import ShelfWire
import Testing

extension MemoryHeavy {
    /// Line framing as a client on a real socket sees it (protocol/PROTOCOL.md, "Framing"; LineFramer's rules).
    @Suite struct FramingOverTCPTests {
        private static let smallLines = ServerConfiguration(listen: HostPort(host: "127.0.0.1", port: 0), maxLineBytes: 256)

        @Test("a request sent one byte per write is answered exactly once")
        func byteByByte() async throws {
            try await withTestServer { server in
                let connection = try await server.connect()
                for byte in Array(#"{"id":1,"method":"ping"}"#.utf8) + [0x0A] {
                    try await connection.send(bytes: [byte])
                }
                #expect(try await connection.nextLine() == ExpectedLine.pong("1"))
                // A duplicate answer would arrive before this one.
                #expect(try await connection.exchange(#"{"id":2,"method":"ping"}"#) == ExpectedLine.pong("2"))
                connection.close()
            }
        }

        @Test("several requests in one write are all answered, in order")
        func severalInOneWrite() async throws {
            try await withTestServer { server in
                let connection = try await server.connect()
                try await connection.send(
                    #"{"id":1,"method":"ping"}"# + "\n" + #"{"id":2,"method":"hello"}"# + "\n"
                        + #"{"id":3,"method":"add","params":{"title":"Dune"}}"# + "\n" + #"{"id":4,"method":"list"}"# + "\n")
                let item = ExpectedLine.itemJSON(1, "Dune", revision: 1)
                #expect(try await connection.nextLines(4) == [
                    ExpectedLine.pong("1"),
                    ExpectedLine.hello("2", revision: 0),
                    ExpectedLine.item("3", revision: 1, item: item),
                    ExpectedLine.list("4", revision: 1, items: [item]),
                ])
                connection.close()
            }
        }

        @Test("a CRLF line ending is accepted and the CR does not reach the title")
        func crlf() async throws {
            try await withTestServer { server in
                let connection = try await server.connect()
                try await connection.send(#"{"id":1,"method":"add","params":{"title":"Dune"}}"# + "\r\n")
                #expect(try await connection.nextLine() == ExpectedLine.item("1", revision: 1, item: ExpectedLine.itemJSON(1, "Dune", revision: 1)))
                connection.close()
            }
        }

        @Test("a CR and its LF in separate writes make one empty line, which gets no reply")
        func crAndLFInSeparateWrites() async throws {
            try await withTestServer { server in
                let connection = try await server.connect()
                // The CR travels with line 1; its LF is sent only after line 1 was answered, so the server reads them
                // apart. A CR that was not dropped would leave a line "\r", answered with -32700.
                try await connection.send(#"{"id":1,"method":"ping"}"# + "\n\r")
                #expect(try await connection.nextLine() == ExpectedLine.pong("1"))
                try await connection.send("\n")
                #expect(try await connection.exchange(#"{"id":2,"method":"ping"}"#) == ExpectedLine.pong("2"))
                connection.close()
            }
        }

        @Test("a lone CR inside a line is data: the line is answered with a parse error")
        func loneCRIsData() async throws {
            try await withTestServer { server in
                let connection = try await server.connect()
                // The CR is not just before the LF, so it stays; after the JSON value it is whitespace, but here it
                // is inside a string, where a raw control character is not allowed.
                let prefix = #"{"id":1,"method":"add","params":{"title":"a"#
                let reply = try await connection.exchange(prefix + "\r" + #"b"}}"#)
                #expect(reply == ExpectedLine.error(
                    "null", code: -32700, message: "Parse error: unescaped control character in string at byte \(prefix.utf8.count)",
                    reason: "parse_error"))
                connection.close()
            }
        }

        @Test("blank and whitespace-only lines get no reply")
        func blankLines() async throws {
            try await withTestServer { server in
                let connection = try await server.connect()
                try await connection.send("\n\n   \n\t\t\n \t \r\n\r\n")
                #expect(try await connection.exchange(#"{"id":1,"method":"ping"}"#) == ExpectedLine.pong("1"))
                connection.close()
            }
        }

        @Test("a last line without LF is answered after a half-close, then the server closes")
        func halfClose() async throws {
            try await withTestServer { server in
                let connection = try await server.connect()
                try await connection.send(#"{"id":1,"method":"ping"}"# + "\n" + #"{"id":2,"method":"hello"}"#)
                connection.connection.shutdownWrite()
                #expect(try await connection.nextLines(2) == [ExpectedLine.pong("1"), ExpectedLine.hello("2", revision: 0)])
                #expect(try await connection.readLine() == nil)
                connection.close()
            }
        }

        @Test("a half-close with nothing pending just closes the connection")
        func halfCloseIdle() async throws {
            try await withTestServer { server in
                let connection = try await server.connect()
                #expect(try await connection.exchange(#"{"id":1,"method":"ping"}"#) == ExpectedLine.pong("1"))
                connection.connection.shutdownWrite()
                #expect(try await connection.readLine() == nil)
                connection.close()
            }
        }

        @Test("an over-long line gets one -32600 with id null naming the limit, and the connection keeps working")
        func overLongLine() async throws {
            try await withTestServer(configuration: Self.smallLines) { server in
                let connection = try await server.connect()
                let title = String(repeating: "x", count: 300)
                try await connection.send(#"{"id":1,"method":"add","params":{"title":"\#(title)"}}"# + "\n")
                #expect(try await connection.nextLine() == ExpectedLine.error(
                    "null", code: -32600, message: "Invalid request: line longer than 256 bytes; it was discarded",
                    reason: "invalid_request"))
                #expect(try await connection.exchange(#"{"id":2,"method":"list"}"#) == ExpectedLine.list("2", revision: 0, items: []))
                connection.close()
            }
        }

        @Test("an over-long line sent in many writes is reported once, before its LF arrives")
        func overLongLineInPieces() async throws {
            try await withTestServer(configuration: Self.smallLines) { server in
                let connection = try await server.connect()
                try await connection.send(#"{"id":1,"method":"add","params":{"title":""#)
                try await connection.send(String(repeating: "y", count: 300))
                // The error comes as soon as the limit is passed; the rest of the line is still to be sent.
                #expect(try await connection.nextLine() == ExpectedLine.error(
                    "null", code: -32600, message: "Invalid request: line longer than 256 bytes; it was discarded",
                    reason: "invalid_request"))
                for _ in 0..<20 {
                    try await connection.send(String(repeating: "z", count: 500))
                }
                try await connection.send(#""}}"# + "\n")
                #expect(try await connection.exchange(#"{"id":2,"method":"ping"}"#) == ExpectedLine.pong("2"))
                connection.close()
            }
        }

        @Test("a line of exactly the limit is accepted")
        func lineAtTheLimit() async throws {
            try await withTestServer(configuration: Self.smallLines) { server in
                let connection = try await server.connect()
                let request = #"{"id":1,"method":"ping"}"#
                let padded = request + String(repeating: " ", count: 256 - request.utf8.count)
                #expect(padded.utf8.count == 256)
                // With CRLF the CR does not count towards the limit.
                #expect(try await connection.exchange(padded + "\r") == ExpectedLine.pong("1"))
                #expect(try await connection.exchange(padded + " ") == ExpectedLine.error(
                    "null", code: -32600, message: "Invalid request: line longer than 256 bytes; it was discarded",
                    reason: "invalid_request"))
                connection.close()
            }
        }

        @Test("invalid UTF-8 gets -32700 for that line only; the connection keeps working")
        func invalidUTF8() async throws {
            try await withTestServer { server in
                let connection = try await server.connect()
                let prefix = Array(#"{"id":1,"method":"add","params":{"title":"a"#.utf8)
                try await connection.send(bytes: prefix + [0xFF] + Array(#"b"}}"#.utf8) + [0x0A])
                #expect(try await connection.nextLine() == ExpectedLine.error(
                    "null", code: -32700, message: "Parse error: invalid UTF-8 at byte \(prefix.count)", reason: "parse_error"))
                #expect(try await connection.exchange(#"{"id":2,"method":"add","params":{"title":"ok"}}"#)
                    == ExpectedLine.item("2", revision: 1, item: ExpectedLine.itemJSON(1, "ok", revision: 1)))
                connection.close()
            }
        }

        @Test("a UTF-8 BOM at the start of the stream is skipped; one on a later line is data")
        func byteOrderMark() async throws {
            try await withTestServer { server in
                let connection = try await server.connect()
                let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
                try await connection.send(bytes: bom + Array(#"{"id":1,"method":"ping"}"#.utf8) + [0x0A])
                #expect(try await connection.nextLine() == ExpectedLine.pong("1"))
                try await connection.send(bytes: bom + Array(#"{"id":2,"method":"ping"}"#.utf8) + [0x0A])
                #expect(try await connection.nextLine() == ExpectedLine.error(
                    "null", code: -32700, message: "Parse error: unexpected byte 0xEF at byte 0", reason: "parse_error"))
                connection.close()
            }
        }

        @Test("a BOM split across writes at the start is still skipped")
        func byteOrderMarkSplit() async throws {
            try await withTestServer { server in
                let connection = try await server.connect()
                try await connection.send(bytes: [0xEF])
                try await connection.send(bytes: [0xBB])
                try await connection.send(bytes: [0xBF] + Array(#"{"id":1,"method":"ping"}"#.utf8) + [0x0A])
                #expect(try await connection.nextLine() == ExpectedLine.pong("1"))
                connection.close()
            }
        }

        @Test("a reply over 2 MiB arrives whole, on one line")
        func largeReply() async throws {
            try await withTestServer { server in
                let connection = try await server.connect()
                let title = String(repeating: "t", count: 1_000)
                var batch = ""
                for _ in 1...1_900 {
                    batch += #"{"method":"add","params":{"title":"\#(title)"}}"# + "\n"
                }
                try await connection.send(batch)
                let reply = try await connection.exchange(#"{"id":1,"method":"list"}"#)
                let items = (1...1_900).map { ExpectedLine.itemJSON($0, title, revision: $0) }
                #expect(reply.utf8.count > 2 << 20)
                expectSameLines([reply], [ExpectedLine.list("1", revision: 1_900, items: items)])
                connection.close()
            }
        }
    }
}
