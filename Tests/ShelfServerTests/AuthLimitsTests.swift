import ShelfJSON
@testable import ShelfServer
import ShelfSockets
import ShelfTestSupport
import Testing

/// What a server with a token does against peers that do not authenticate or guess (protocol/PROTOCOL.md §12): an
/// authentication deadline, a budget for unauthenticated connections that the token holders always get through,
/// and guesses slowed per address across connections.
@Suite struct AuthLimitsTests {
    static let token = "s3cret-token-0123456789"
    static let authLine = #"{"jsonrpc":"2.0","id":1,"method":"auth","params":{"token":"s3cret-token-0123456789"}}"#

    /// Three wrong tokens from one connection, each refused with code 5, after which the server closes it: the
    /// connection's address has then used its free attempts.
    private static func guessThreeTimes(on server: TestServer) async throws {
        let guesser = try await server.connect()
        defer { guesser.close() }
        for attempt in 1...3 {
            let reply = try await guesser.call(#"{"jsonrpc":"2.0","id":\#(attempt),"method":"auth","params":{"token":"guess\#(attempt)"}}"#)
            #expect(reply.member("error", "code") == 5)
        }
        #expect(try await guesser.readLine() == nil, "closed after the third wrong token")
    }

    private static func configuration(_ change: (inout ServerConfiguration) -> Void = { _ in }) -> ServerConfiguration {
        var configuration = ServerConfiguration(listen: HostPort(host: "127.0.0.1", port: 0))
        configuration.token = token
        change(&configuration)
        return configuration
    }

    @Test("a connection that does not authenticate within --auth-timeout is told auth_timeout and closed; pinging does not keep it")
    func authDeadline() async throws {
        let clock = ManualClock()
        try await withTestServer(configuration: Self.configuration { $0.authTimeout = .seconds(3) }, clock: clock) { server in
            let silent = try await server.connect()
            defer { silent.close() }
            // hello and ping are answered before auth, but do not count as authenticating.
            #expect(try await silent.call(#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#).member("result") == "pong")
            let authenticated = try await server.connect()
            defer { authenticated.close() }
            #expect(try await authenticated.call(Self.authLine).member("result") == .object(JSONObject()))
            try await clock.waitForTimers(2)
            clock.advance(by: .milliseconds(2999))
            #expect(try await silent.call(#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#).member("result") == "pong")
            clock.advance(by: .milliseconds(1))
            let closing = try JSONParser.parse(Array(try #require(try await silent.readLine()).utf8))
            #expect(closing.member("method") == "closing")
            #expect(closing.member("params", "reason") == "auth_timeout")
            #expect(try await silent.readLine() == nil, "then the end of the stream")
            // The connection that authenticated in time stays.
            #expect(try await authenticated.call(#"{"jsonrpc":"2.0","id":2,"method":"list"}"#).member("result", "revision") == 0)
        }
    }

    @Test("with the unauthenticated budget full of silent connections, a client with the token still connects, authenticates and lists")
    func budgetFull() async throws {
        try await withTestServer(configuration: Self.configuration { $0.maxUnauthenticated = 4 }) { server in
            var silent: [LineConnection] = []
            defer { for connection in silent { connection.close() } }
            for _ in 0..<4 {
                let connection = try await server.connect()
                // A round trip, so the server has accepted it before the next one comes.
                #expect(try await connection.call(#"{"jsonrpc":"2.0","id":0,"method":"ping"}"#).member("result") == "pong")
                silent.append(connection)
            }
            let owner = try await server.connect()
            defer { owner.close() }
            #expect(try await owner.call(Self.authLine).member("result") == .object(JSONObject()))
            #expect(try await owner.call(#"{"jsonrpc":"2.0","id":2,"method":"add","params":{"title":"Dune"}}"#).member("result", "revision") == 1)
            #expect(try await owner.call(#"{"jsonrpc":"2.0","id":3,"method":"list"}"#).member("result", "revision") == 1)

            // The one that waited longest made room, and was told why.
            let closing = try JSONParser.parse(Array(try #require(try await silent[0].readLine()).utf8))
            #expect(closing.member("params", "reason") == "too_many_unauthenticated")
            #expect(try await silent[0].readLine() == nil)
            // The others are still there.
            #expect(try await silent[1].call(#"{"jsonrpc":"2.0","id":9,"method":"ping"}"#).member("result") == "pong")
        }
    }

    @Test("after three wrong tokens from an address, its next auth on another connection waits for its slot on the server's clock; a good token then still works")
    func guessesSlowedAcrossConnections() async throws {
        let configuration = Self.configuration {
            $0.guessBaseDelay = .milliseconds(400)
            $0.guessMaxDelay = .milliseconds(400)
        }
        let clock = ManualClock()
        try await withTestServer(configuration: configuration, clock: clock) { server in
            try await Self.guessThreeTimes(on: server)

            // A fresh connection from the same address: its first guess is checked only at the address's slot, 400 ms
            // on. The wait is a timer of the server's clock: the reply comes once the clock has passed it.
            let again = try await server.connect()
            defer { again.close() }
            #expect(try await again.call(#"{"jsonrpc":"2.0","id":0,"method":"ping"}"#).member("result") == "pong")
            let armed = clock.pendingCount
            try await again.send(#"{"jsonrpc":"2.0","id":4,"method":"auth","params":{"token":"guess4"}}"# + "\n")
            try await clock.waitForTimers(armed + 1)
            clock.advance(by: .milliseconds(400))
            #expect(try await again.readJSON().member("error", "code") == 5)
            // The right token waits its own slot, 400 ms after that one, then is accepted and forgets the failures.
            let waiting = clock.pendingCount
            try await again.send(Self.authLine + "\n")
            try await clock.waitForTimers(waiting + 1)
            clock.advance(by: .milliseconds(400))
            #expect(try await again.readJSON().member("result") == .object(JSONObject()))
            let third = try await server.connect()
            defer { third.close() }
            let wrong = try await third.call(#"{"jsonrpc":"2.0","id":5,"method":"auth","params":{"token":"typo"}}"#)
            #expect(wrong.member("error", "message") == "Unauthorized: wrong token (2 attempts left)")
        }
    }

    /// The timer of a guess's wait held the session (and its memory) until it fired, up to `guessMaxDelay` after
    /// the connection had closed.
    @Test("a connection closed at its auth deadline while its guess waits for a slot leaves no timer behind")
    func guessWaitEndsWithTheConnection() async throws {
        let configuration = Self.configuration {
            $0.guessBaseDelay = .seconds(8)
            $0.guessMaxDelay = .seconds(8)
            $0.authTimeout = .seconds(1)
        }
        let clock = ManualClock()
        try await withTestServer(configuration: configuration, clock: clock) { server in
            try await Self.guessThreeTimes(on: server)
            let waiting = try await server.connect()
            defer { waiting.close() }
            #expect(try await waiting.call(#"{"jsonrpc":"2.0","id":0,"method":"ping"}"#).member("result") == "pong")
            // Its auth deadline, and the guesser's linger, are armed.
            let armed = clock.pendingCount
            try await waiting.send(#"{"jsonrpc":"2.0","id":4,"method":"auth","params":{"token":"guess4"}}"# + "\n")
            try await clock.waitForTimers(armed + 1)
            clock.advance(by: .seconds(1))
            // Closed at once: a reply is still owed (the waiting auth), so no `closing` line can go last.
            #expect(try await waiting.readLine() == nil)
            // The guess's wait would end 7 s on; a closing connection lingers 4 s at most (`Session.closingLinger`).
            let horizon = clock.now + .seconds(5)
            try await withDeadline { try await waitUntil { clock.pendingDeadlines.allSatisfy { $0 < horizon } } }
        }
    }

    @Test("before auth a line may hold 4096 bytes; after auth the server's limit applies")
    func shortLinesBeforeAuth() async throws {
        try await withTestServer(configuration: Self.configuration()) { server in
            let connection = try await server.connect()
            defer { connection.close() }
            let note = String(repeating: "a", count: 5000)
            let long = #"{"jsonrpc":"2.0","id":1,"method":"add","params":{"title":"Dune","note":"\#(note)"}}"#
            let refused = try await connection.call(long)
            #expect(refused.member("error", "code") == -32600)
            #expect(refused.member("error", "message") == "Invalid request: line longer than 4096 bytes; it was discarded")
            #expect(try await connection.call(Self.authLine).member("result") == .object(JSONObject()))
            let added = try await connection.call(long.replacingOccurrences(of: #""id":1"#, with: #""id":2"#))
            #expect(added.member("result", "item", "note") == .string(note))
        }
    }
}
