import Foundation
import ShelfJSON
import ShelfServer
import ShelfSockets
import Testing

extension MemoryHeavy {
    /// Hostile input (the reliability issue; protocol/PROTOCOL.md §1, §2, §8): whatever a client sends, the server
    /// neither crashes nor hangs, every request with a readable id gets exactly one reply, and the connection stays
    /// usable — after each hostile chunk a `ping` with a fresh id gets its `pong` (`HostileProbe`). Each case is the
    /// exact input; the fuzz test adds seeded random ones (`FUZZ_SEED`, `FUZZ_ITERATIONS`; scripts/fuzz runs it longer).
    @Suite struct HostileInputTests {
        /// Runs one fixed case on a fresh server, after a first `ping` (so no case is at the start of the stream).
        private func run(_ hostile: HostileCase) async throws {
            try await withTestServer(seconds: 30) { server in
                let probe = HostileProbe(connection: try await server.connect())
                try await probe.check([], owed: [], label: "warm-up")
                try await probe.check(hostile.chunks, owed: hostile.owed, label: hostile.name)
                // The oracle must agree with the hand-written expectation, or one of them is wrong.
                let predicted = HostileOracle.owed(for: hostile.chunks.flatMap { $0 } + [0x0A])
                #expect(
                    predicted.count == hostile.owed.count && zip(predicted, hostile.owed).allSatisfy { $0.admits($1) },
                    "the oracle predicts \(predicted)")
                // Another connection was never affected.
                let other = HostileProbe(connection: try await server.connect())
                try await other.check([], owed: [], label: "second connection")
                probe.connection.close()
                other.connection.close()
            }
        }

        @Test("NUL bytes and control characters", arguments: HostileCases.controlCharacters)
        func controlCharacters(_ hostile: HostileCase) async throws {
            try await run(hostile)
        }

        @Test("invalid UTF-8 and byte order marks mid-stream", arguments: HostileCases.encoding)
        func encoding(_ hostile: HostileCase) async throws {
            try await run(hostile)
        }

        @Test("truncated and garbled JSON", arguments: HostileCases.garbled)
        func garbled(_ hostile: HostileCase) async throws {
            try await run(hostile)
        }

        @Test("100,000 nested brackets, and the nesting limit", arguments: HostileCases.nesting)
        func nesting(_ hostile: HostileCase) async throws {
            try await run(hostile)
        }

        @Test("huge numbers as ids and params", arguments: HostileCases.numbers)
        func numbers(_ hostile: HostileCase) async throws {
            try await run(hostile)
        }

        @Test("duplicate keys: the last one wins", arguments: HostileCases.duplicateKeys)
        func duplicateKeys(_ hostile: HostileCase) async throws {
            try await run(hostile)
        }

        @Test("ids of every JSON type and size come back exactly, or get -32600 with id null", arguments: HostileCases.ids)
        func ids(_ hostile: HostileCase) async throws {
            try await run(hostile)
        }

        @Test("batches of every shape", arguments: HostileCases.batches)
        func batches(_ hostile: HostileCase) async throws {
            try await run(hostile)
        }

        @Test("a duplicated title param stores the last title")
        func duplicateTitleStoresTheLast() async throws {
            try await withTestServer { server in
                let connection = try await server.connect()
                let item = ExpectedLine.itemJSON(1, "Second", revision: 1)
                #expect(try await connection.exchange(#"{"id":1,"method":"add","params":{"title":"First","title":"Second"}}"#)
                    == ExpectedLine.item("1", revision: 1, item: item))
                #expect(try await connection.exchange(#"{"id":2,"method":"list"}"#) == ExpectedLine.list("2", revision: 1, items: [item]))
                connection.close()
            }
        }

        @Test("every param of every method, and params itself, of every wrong type gets -32602 with its id")
        func wrongParamTypes() async throws {
            let cases = HostileCases.wrongParamTypes
            #expect(cases.count > 150)
            try await withTestServer(seconds: 30) { server in
                let probe = HostileProbe(connection: try await server.connect())
                for (line, owed) in cases {
                    try await probe.check(line, owed: [owed], label: "wrong param type")
                }
                // Nothing was written by any of them.
                #expect(try await probe.connection.exchange(#"{"id":"rev","method":"hello"}"#) == ExpectedLine.hello(#""rev""#, revision: 0))
            }
        }

        @Test("a request cut off after every byte is one -32700, and so is every tail of it")
        func everyTruncation() async throws {
            let requests = [
                #"{"jsonrpc":"2.0","id":"t","method":"rename","params":{"id":"00000000-0000-0000-0000-000000000001","title":"Dune é 😀","expect":0}}"#,
                #"[{"id":1,"method":"ping"},{"id":"two","method":"list","params":{"filter":"unread"}}]"#,
            ]
            try await withTestServer(seconds: 60) { server in
                let probe = HostileProbe(connection: try await server.connect())
                for request in requests {
                    let bytes = Array(request.utf8)
                    for cut in 1..<bytes.count {
                        // Cutting inside a multi-byte character leaves invalid UTF-8: still -32700.
                        try await probe.check([Array(bytes[..<cut])], owed: [.nullError(-32700)], label: "prefix of \(cut) bytes")
                        try await probe.check([Array(bytes[cut...])], label: "tail from byte \(cut)")
                    }
                }
            }
        }

        @Test("a request split into two writes at every byte boundary is answered exactly once")
        func splitAtEveryBoundary() async throws {
            let line = Array((#"{"jsonrpc":"2.0","id":"é-split","method":"add","params":{"title":"Dune ☃ 😀"}}"# + "\r\n").utf8)
            let batch = Array((#"[{"id":1,"method":"ping"},{"id":2,"method":"hello"},{"method":"ping"}]"# + "\n").utf8)
            try await withTestServer(seconds: 60) { server in
                let probe = HostileProbe(connection: try await server.connect())
                try await probe.check([], owed: [], label: "warm-up")
                for cut in 1..<line.count {
                    let replies = try await probe.check(
                        [Array(line[..<cut]), Array(line[cut...])], owed: [.ok(#""é-split""#)], label: "request split at byte \(cut)")
                    #expect(replies.first?.contains(#""title":"Dune ☃ 😀""#) == true, "split at \(cut): \(replies)")
                }
                for cut in 1..<batch.count {
                    try await probe.check([Array(batch[..<cut]), Array(batch[cut...])], owed: [.batchOf(["1", "2"])], label: "batch split at byte \(cut)")
                }
                // Three writes: every pair of cuts in a short request.
                let ping = Array(#"{"id":"p","method":"ping"}"#.utf8)
                for first in 1..<ping.count {
                    for second in (first + 1)..<ping.count {
                        try await probe.check(
                            [Array(ping[..<first]), Array(ping[first..<second]), Array(ping[second...])], owed: [.ok(#""p""#)],
                            label: "ping split at \(first) and \(second)")
                    }
                }
            }
        }

        @Test("a BOM and request at the start of a connection, split at every byte boundary, is answered")
        func bomSplitAtStart() async throws {
            let bytes: [UInt8] = [0xEF, 0xBB, 0xBF] + Array(#"{"id":"bom","method":"ping"}"#.utf8)
            try await withTestServer(seconds: 30) { server in
                for cut in 1..<bytes.count {
                    let probe = HostileProbe(connection: try await server.connect())
                    try await probe.check([Array(bytes[..<cut]), Array(bytes[cut...])], owed: [.ok(#""bom""#)], label: "BOM start split at \(cut)")
                    probe.connection.close()
                }
                // Only the first BOM of a stream is skipped.
                let probe = HostileProbe(connection: try await server.connect())
                try await probe.check([[0xEF, 0xBB, 0xBF, 0xEF, 0xBB, 0xBF] + Array(#"{"id":1,"method":"ping"}"#.utf8)], owed: [.nullError(-32700)], label: "two BOMs")
                probe.connection.close()
            }
        }

        @Test("a reply larger than the socket buffers reaches a client that half-closed, then the server closes")
        func hugeReplyToHalfClosedClient() async throws {
            // 6,000 items of 1,000 characters: a `list` reply of about 6.3 MB, more than a loopback socket holds while
            // the client does not read (its receive window, about 128 KB, plus the server's send buffer, at most 4 MB)
            // and more than this server's reply budget, which one reply may exceed.
            var configuration = ServerConfiguration(listen: HostPort(host: "127.0.0.1", port: 0))
            configuration.maxOutboundBytes = 1 << 20
            try await withTestServer(configuration: configuration, seconds: 120) { server in
                let loader = try await server.connect()
                let title = String(repeating: "x", count: 995)
                for batch in 0..<30 {
                    let adds = (0..<200).map { #"{"id":\#($0),"method":"add","params":{"title":"\#(title)\#(batch * 200 + $0)"}}"# }
                    let reply = try await loader.exchange("[" + adds.joined(separator: ",") + "]")
                    #expect(reply.hasPrefix("[") && !reply.contains("error"), "batch \(batch)")
                }

                let reader = try await server.connect()
                try await reader.send(#"{"id":"big","method":"list"}"# + "\n" + #"{"id":"after","method":"ping"}"#)
                reader.connection.shutdownWrite()
                // While that reply is stuck in the socket, the server serves everyone else.
                let probe = HostileProbe(connection: try await server.connect())
                try await probe.check(#"{"id":"x","method":"add","params":{"title":"while stuck"}}"#, owed: [.ok(#""x""#)], label: "other client")

                let big = try await reader.nextLine()
                #expect(big.utf8.count > 6_000_000)
                let list = try JSONParser.parse(Array(big.utf8))
                #expect(list.integer("result", "revision") == 6000)
                #expect(list.member("result", "items")?.arrayValue?.count == 6000)
                #expect(try await reader.nextLine() == ExpectedLine.pong(#""after""#), "the last line, without LF, is answered too")
                #expect(try await reader.readLine() == nil, "then the server closes")

                // A client that half-closes and never reads, then vanishes, leaves nothing stuck.
                let vanishing = try await server.connect()
                try await vanishing.send(String(repeating: #"{"id":1,"method":"list"}"# + "\n", count: 4))
                vanishing.connection.shutdownWrite()
                try await probe.check(#"{"id":"y","method":"ping"}"#, owed: [.ok(#""y""#)], label: "while a reader is stuck")
                vanishing.close()
                try await probe.check(#"{"id":"z","method":"list","params":{"filter":"read"}}"#, owed: [.ok(#""z""#)], label: "after it vanished")
                loader.close()
                probe.connection.close()
            }
        }

        @Test("hostile auth params never close the connection; only the third wrong token does, after its reply")
        func closesOnlyWhereTheProtocolSays() async throws {
            var configuration = ServerConfiguration(listen: HostPort(host: "127.0.0.1", port: 0))
            configuration.token = "secret"
            try await withTestServer(configuration: configuration) { server in
                let probe = HostileProbe(connection: try await server.connect())
                for params in [#"{"token":1}"#, #"{"token":null}"#, #"{"token":["secret"]}"#, "[]", #"{"tokens":"secret"}"#, "{}"] {
                    try await probe.check(#"{"id":"a","method":"auth","params":\#(params)}"#, owed: [.error(#""a""#, -32602)], label: "auth \(params)")
                }
                try await probe.check(#"{"id":"l","method":"list"}"#, owed: [.error(#""l""#, 5)], label: "list before auth")
                try await probe.check(#"{"id":"w1","method":"auth","params":{"token":"wrong"}}"#, owed: [.error(#""w1""#, 5)], label: "first wrong token")
                try await probe.check(#"{"id":"w2","method":"auth","params":{"token":"secre\u0000"}}"#, owed: [.error(#""w2""#, 5)], label: "second wrong token")
                let connection = probe.connection
                let last = try await connection.exchange(#"{"id":"w3","method":"auth","params":{"token":""}}"# + "\n" + #"{"id":"late","method":"ping"}"#)
                #expect(last.hasPrefix(#"{"jsonrpc":"2.0","id":"w3","error":{"code":5,"#))
                #expect(try await connection.readLine() == nil, "closed after the third wrong token, the ping behind it unanswered")
            }
        }

        // MARK: - Fuzz

        /// `FUZZ_SEED` (decimal or 0x-hex) and `FUZZ_ITERATIONS` from the environment, for scripts/fuzz.
        private static let fuzzSeed: UInt64 = {
            guard let text = ProcessInfo.processInfo.environment["FUZZ_SEED"] else { return 0x5EED_0F_5E1F }
            return text.hasPrefix("0x") ? UInt64(text.dropFirst(2), radix: 16) ?? 0 : UInt64(text) ?? 0
        }()
        private static let fuzzIterations = ProcessInfo.processInfo.environment["FUZZ_ITERATIONS"].flatMap { Int($0) } ?? 2000

        @Test("fuzz: seeded random bytes, garbled requests, random param types and batches, whole or split, never crash or hang the server, and each line gets exactly its replies")
        func fuzz() async throws {
            let seed = Self.fuzzSeed
            let iterations = Self.fuzzIterations
            let perServer = 400
            let started = ContinuousClock.now
            var totals: [HostileFuzzer.Kind: Int] = [:]
            var bytesSent = 0
            var repliesChecked = 0
            for block in 0..<((iterations + perServer - 1) / perServer) {
                let count = min(perServer, iterations - block * perServer)
                // Each block gets a fresh server (the list stays small) and its own stream, so any failure can be
                // replayed from the seed and block it names.
                var fuzzer = HostileFuzzer(seed: seed &+ UInt64(block) &* 0x9E37_79B9_7F4A_7C15)
                let cases = (0..<count).map { _ in fuzzer.next() }
                for hostile in cases { totals[hostile.kind, default: 0] += 1 }
                bytesSent += cases.reduce(0) { $0 + $1.chunks.reduce(0) { $0 + $1.count } }
                let checked = Locked(0)
                try await withTestServer(seconds: 60 + count / 10) { server in
                    let probe = HostileProbe(connection: try await server.connect())
                    try await probe.check([], owed: [], label: "warm-up")
                    for (index, hostile) in cases.enumerated() {
                        try await probe.check(
                            hostile.chunks, label: "fuzz FUZZ_SEED=\(seed) block \(block) iteration \(index) (\(hostile.kind), \(hostile.chunks.count) writes)")
                    }
                    let other = HostileProbe(connection: try await server.connect())
                    try await other.check([], owed: [], label: "another connection after block \(block)")
                    checked.withLock { $0 = probe.repliesChecked + other.repliesChecked }
                }
                repliesChecked += checked.withLock { $0 }
            }
            let kinds = HostileFuzzer.Kind.allCases.map { "\($0.rawValue) \(totals[$0, default: 0])" }.joined(separator: ", ")
            print("fuzz: FUZZ_SEED=\(seed) FUZZ_ITERATIONS=\(iterations): \(kinds); \(bytesSent) bytes sent, \(repliesChecked) replies checked in \(ContinuousClock.now - started)")
        }
    }
}
