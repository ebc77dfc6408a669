import ShelfClient
import ShelfCore
import ShelfJSON
import ShelfServer
import ShelfSockets
import ShelfWire
import Testing
import ShelfTestSupport

/// `ShelfClient.connect(to:token:)` sends the token only to a server whose `hello` says it requires one
/// (protocol/PROTOCOL.md §12).
@Suite struct ClientAuthTests {
    /// A peer that answers `hello` (saying `"auth":` `auth`), `auth` and `ping` as shelfd does, and keeps every line
    /// it is sent, in order, for one connection.
    private static func recordingServer(
        auth: String, _ body: @escaping @Sendable (HostPort, Locked<[String]>) async throws -> Void
    ) async throws {
        let listener = try TCPListener.listen(on: HostPort(host: "127.0.0.1", port: 0))
        defer { listener.close() }
        let received = Locked<[String]>([])
        let serving = Task {
            let connection = try await listener.accept()
            defer { connection.close() }
            var framer = LineFramer()
            while true {
                let bytes = try await connection.read()
                if bytes.isEmpty { return }
                for case .line(let line) in framer.push(bytes) {
                    let text = String(decoding: line, as: UTF8.self)
                    received.withLock { $0.append(text) }
                    guard case .object(let request)? = try? JSONParser.parse(line), let id = request["id"] else { continue }
                    let result: JSONValue = switch request["method"]?.stringValue {
                    case "hello":
                        .object(JSONObject([
                            ("server", "shelfd"), ("version", "0.1.0"), ("protocol", 1), ("revision", 0),
                            ("auth", .string(auth)), ("run", .string(TestServer.run.wireString)),
                        ]))
                    case "ping": "pong"
                    default: .object(JSONObject())
                    }
                    var reply = JSONWriter.encode(.object(JSONObject([("jsonrpc", "2.0"), ("id", id), ("result", result)])))
                    reply.append(0x0A)
                    try await connection.write(reply)
                }
            }
        }
        defer { serving.cancel() }
        try await withDeadline { try await body(listener.localAddress, received) }
    }

    /// The method of each line, in order.
    private static func methods(_ lines: [String]) -> [String] {
        lines.map { line in
            guard case .object(let request)? = try? JSONParser.parse(Array(line.utf8)[...]) else { return line }
            return request["method"]?.stringValue ?? line
        }
    }

    /// Found by review: `connect` sent `auth` with the token to whatever answered, so any server it was pointed at
    /// (one without a token, or not ours) was handed it.
    @Test("connecting with a token to a server whose hello says auth none sends hello, never auth, and never the token")
    func noAuthToAServerThatRequiresNone() async throws {
        try await Self.recordingServer(auth: "none") { address, received in
            let client = try await ShelfClient.connect(to: address, token: "s3cret-token-0123")
            // Its reply comes after every line before it was read.
            try await client.ping()
            let lines = received.withLock { $0 }
            #expect(Self.methods(lines) == ["hello", "ping"])
            #expect(!lines.contains { $0.contains("s3cret-token-0123") }, "\(lines)")
            await client.close()
        }
    }

    @Test("connecting with a token to a server whose hello says auth required sends hello, then auth with the token")
    func authToAServerThatRequiresIt() async throws {
        try await Self.recordingServer(auth: "required") { address, received in
            let client = try await ShelfClient.connect(to: address, token: "s3cret-token-0123")
            try await client.ping()
            let lines = received.withLock { $0 }
            #expect(Self.methods(lines) == ["hello", "auth", "ping"])
            #expect(lines.count == 3 && lines[1].contains(#""token":"s3cret-token-0123""#), "\(lines)")
            await client.close()
        }
    }

    @Test("against a shelfd with a token: the right one authenticates, a wrong one is refused with 5, none gets 5 on list")
    func realServerStillAuthenticates() async throws {
        var configuration = ServerConfiguration(listen: HostPort(host: "127.0.0.1", port: 0))
        configuration.token = "s3cret-token-0123"
        try await withTestServer(configuration: configuration) { server in
            let client = try await ShelfClient.connect(to: server.address, token: "s3cret-token-0123")
            #expect(try await client.list().items.isEmpty)
            await client.close()

            let wrong = await #expect(throws: ClientError.self) {
                try await ShelfClient.connect(to: server.address, token: "not-the-token")
            }
            guard case .server(let refused)? = wrong else {
                Issue.record("a wrong token gave \(String(describing: wrong))")
                return
            }
            #expect(refused.knownCode == .unauthorized)

            let anonymous = try await ShelfClient.connect(to: server.address)
            let unauthorized = await #expect(throws: ClientError.self) { try await anonymous.list() }
            guard case .server(let error)? = unauthorized else {
                Issue.record("list without a token gave \(String(describing: unauthorized))")
                return
            }
            #expect(error.knownCode == .unauthorized)
            await anonymous.close()
        }
    }
}
