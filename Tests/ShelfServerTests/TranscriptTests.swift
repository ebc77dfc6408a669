import Foundation
import ShelfCore
import ShelfJSON
import ShelfServer
import ShelfSockets
import ShelfWire
import ShelfTestSupport
import Testing

/// Plays every transcript in protocol/examples against a fresh `TestServer` and checks each reply line byte for
/// byte (protocol/PROTOCOL.md, "Examples", describes the format).
///
/// Replies are compared as exact text, not as JSON values: member order, number spelling and string escaping are
/// what a client reads, so the examples promise them too. A mismatch says whether the two lines are at least the
/// same JSON value. With `SHELF_RECORD_TRANSCRIPTS=1` in the environment, a transcript whose replies differ is
/// rewritten with the replies the server gave (and the test still fails): review the change with `git diff`.
@Suite struct TranscriptTests {
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("protocol/examples")

    static let files: [String] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasSuffix(".ndjson") }.sorted()
    }()

    @Test("each transcript in protocol/examples plays back exactly", arguments: files)
    func playsBack(_ name: String) async throws {
        let text = try String(contentsOf: Self.directory.appendingPathComponent(name), encoding: .utf8)
        let transcript = try Transcript.parse(text, file: name)
        let store = MemoryListStore(identity: TestServer.listID)
        store.failWrites = transcript.failingStore
        var configuration = ServerConfiguration(listen: HostPort(host: "127.0.0.1", port: 0))
        if let limit = transcript.maxLineBytes { configuration.maxLineBytes = limit }
        configuration.token = transcript.token
        try await withTestServer(store: store, configuration: configuration) { server in
            let connection = try await server.connect()
            defer { connection.close() }
            let actual = try await Self.play(transcript, on: connection, file: name)
            if ProcessInfo.processInfo.environment["SHELF_RECORD_TRANSCRIPTS"] == "1", !actual.isEmpty {
                try Self.record(actual, into: name, text: text)
            }
        }
    }

    /// Rewrites the `<-` lines at the given 1-based line numbers of `name` with the replies received there.
    private static func record(_ actual: [Int: String], into name: String, text: String) throws {
        var lines = text.components(separatedBy: "\n")
        for (number, reply) in actual where number - 1 < lines.count { lines[number - 1] = "<- " + reply }
        try lines.joined(separator: "\n").write(to: directory.appendingPathComponent(name), atomically: true, encoding: .utf8)
    }

    @Test("the transcripts use every method and show every error code a memory store can produce")
    func coverage() throws {
        var sent = "", received = ""
        for name in Self.files {
            let text = try String(contentsOf: Self.directory.appendingPathComponent(name), encoding: .utf8)
            for step in try Transcript.parse(text, file: name).steps {
                switch step.action {
                case .send(let bytes): sent += String(decoding: bytes, as: UTF8.self)
                case .expect(let line): received += line
                case .endInput: break
                }
            }
        }
        #expect(Self.files.count >= 8)
        let uncalled = MethodCall.methodNames.filter { !sent.contains("\"method\":\"\($0)\"") }
        #expect(uncalled.isEmpty, "no transcript calls \(uncalled)")
        // -32603 cannot be provoked, and too_many_connections needs a second connection (ServerLimitsTests).
        let unshown = RPCErrorCode.allCases.filter {
            $0 != .internalError && $0 != .tooManyConnections && !received.contains("{\"code\":\($0.rawValue),")
        }
        #expect(unshown.isEmpty, "no transcript shows error \(unshown.map(\.rawValue))")
    }

    /// Sends and expects in file order; afterwards proves that no reply is left over.
    /// - Returns: the replies that differed from the expected ones, by the expected line's number (all of them, not
    ///   only the first, when recording).
    @discardableResult
    private static func play(_ transcript: Transcript, on connection: LineConnection, file: String) async throws -> [Int: String] {
        let recording = ProcessInfo.processInfo.environment["SHELF_RECORD_TRANSCRIPTS"] == "1"
        var differing: [Int: String] = [:]
        var inputEnded = false
        for step in transcript.steps {
            let at = "\(file):\(step.line)"
            switch step.action {
            case .send(let bytes):
                try await connection.send(bytes: bytes)
            case .endInput:
                connection.connection.shutdownWrite()
                inputEnded = true
            case .expect(let expected):
                let reply = try await nextReply(connection)
                guard reply == .line(expected) else {
                    var difference = ""
                    if case .line(let actual) = reply, sameJSON(actual, expected) { difference = " in text only (same JSON value)" }
                    Issue.record("\(at): reply differs\(difference)\n expected: \(expected)\n   actual: \(reply)")
                    guard recording, case .line(let actual) = reply else { return differing }
                    differing[step.line] = actual
                    continue
                }
            }
        }
        if inputEnded {
            let reply = try await nextReply(connection)
            if reply != .closed { Issue.record("\(file): expected the server to close the connection, got \(reply)") }
            return differing
        }
        // Replies come in request order, so anything unexpected would arrive before the answer to this ping.
        try await connection.send(#"{"id":"end-of-transcript","method":"ping"}"# + "\n")
        let reply = try await nextReply(connection)
        if reply != .line(#"{"jsonrpc":"2.0","id":"end-of-transcript","result":"pong"}"#) {
            Issue.record("\(file): after the last expected line, expected only the closing ping's pong, got \(reply)")
        }
        return differing
    }

    /// What came from the server next.
    private enum Reply: Equatable, CustomStringConvertible {
        case line(String)
        case closed
        /// Nothing within 5 s.
        case silence

        var description: String {
            switch self {
            case .line(let text): text
            case .closed: "(the server closed the connection)"
            case .silence: "(no reply within 5 s)"
            }
        }
    }

    /// The next line, after the telnet refusals that came before it written as `\xHH` escapes (a reply line never
    /// holds 0xFF, and never starts with a backslash).
    private static func nextReply(_ connection: LineConnection) async throws -> Reply {
        let reply = try await result(within: .seconds(5)) { try await connection.readLine().map(Reply.line) ?? .closed } ?? .silence
        let telnet = connection.takeTelnetReplies()
        guard case .line(let line) = reply, !telnet.isEmpty else { return reply }
        let hex = Array("0123456789ABCDEF")
        return .line(telnet.map { "\\x\(hex[Int($0 >> 4)])\(hex[Int($0 & 0x0F)])" }.joined() + line)
    }

    private static func sameJSON(_ a: String, _ b: String) -> Bool {
        guard let left = try? JSONParser.parse(Array(a.utf8)), let right = try? JSONParser.parse(Array(b.utf8)) else {
            return false
        }
        return left == right
    }
}

/// A parsed transcript file: header settings and the steps in file order.
private struct Transcript {
    enum Action: Equatable {
        /// Bytes to send (`->` text plus LF, or decoded `=>` bytes).
        case send([UInt8])
        /// The exact next reply line (`<-`).
        case expect(String)
        /// The client shuts down its sending side (`-|`).
        case endInput
    }

    struct Step {
        let action: Action
        /// 1-based line number in the file.
        let line: Int
    }

    var failingStore = false
    var maxLineBytes: Int?
    var token: String?
    var steps: [Step] = []

    struct FormatError: Error, CustomStringConvertible {
        let description: String
    }

    static func parse(_ text: String, file: String) throws -> Transcript {
        var transcript = Transcript()
        // Split on LF scalars (a Swift Character would treat CR LF as one), and forgive CR LF line ends.
        for (index, raw) in text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            var line = String(String.UnicodeScalarView(raw))
            if line.unicodeScalars.last == "\r" { line = String(String.UnicodeScalarView(line.unicodeScalars.dropLast())) }
            let at = "\(file):\(index + 1)"
            if line.hasPrefix("#!") {
                try transcript.applySetting(String(line.dropFirst(2)), at: at)
            } else if line.hasPrefix("#") || line.allSatisfy(\.isWhitespace) {
                continue
            } else if line.hasPrefix("-> ") {
                transcript.steps.append(Step(action: .send(Array(line.dropFirst(3).utf8) + [0x0A]), line: index + 1))
            } else if line.hasPrefix("=> ") {
                let bytes = try decodeEscapes(String(line.dropFirst(3)), at: at)
                transcript.steps.append(Step(action: .send(bytes), line: index + 1))
            } else if line.hasPrefix("<- ") {
                let expected = String(line.dropFirst(3))
                // Telnet refusals before the line are `\xHH` escapes (three bytes each); the rest is JSON.
                var json = Substring(expected)
                while json.hasPrefix("\\x") { json = json.dropFirst(4) }
                guard (try? JSONParser.parse(Array(json.utf8))) != nil else {
                    throw FormatError(description: "\(at): the expected reply is not valid JSON")
                }
                transcript.steps.append(Step(action: .expect(expected), line: index + 1))
            } else if line == "-|" {
                transcript.steps.append(Step(action: .endInput, line: index + 1))
            } else {
                throw FormatError(description: "\(at): a line must start with ->, =>, <-, -|, # or be blank")
            }
        }
        if let end = transcript.steps.firstIndex(where: { $0.action == .endInput }),
           transcript.steps[end...].contains(where: { if case .send = $0.action { true } else { false } }) {
            throw FormatError(description: "\(file): nothing can be sent after -|")
        }
        return transcript
    }

    /// `#! store failing` (every write fails), `#! max-line-bytes N` or `#! token TOKEN` (the server requires `auth`).
    private mutating func applySetting(_ setting: String, at: String) throws {
        let words = setting.split(separator: " ").map(String.init)
        if words == ["store", "failing"] {
            failingStore = true
        } else if words.count == 2, words[0] == "max-line-bytes", let limit = Int(words[1]) {
            maxLineBytes = limit
        } else if words.count == 2, words[0] == "token" {
            token = words[1]
        } else {
            throw FormatError(description: "\(at): unknown setting \"#!\(setting)\"")
        }
    }

    /// Decodes `\r`, `\n`, `\t`, `\\` and `\xHH`; every other character is sent as its UTF-8.
    private static func decodeEscapes(_ text: String, at: String) throws -> [UInt8] {
        var out: [UInt8] = []
        var chars = Array(text.unicodeScalars)[...]
        while let scalar = chars.popFirst() {
            guard scalar == "\\" else {
                out.append(contentsOf: Array(String(scalar).utf8))
                continue
            }
            switch chars.popFirst() {
            case "r": out.append(0x0D)
            case "n": out.append(0x0A)
            case "t": out.append(0x09)
            case "\\": out.append(0x5C)
            case "x":
                let hex = String(String.UnicodeScalarView(chars.prefix(2)))
                guard hex.count == 2, let byte = UInt8(hex, radix: 16) else {
                    throw FormatError(description: "\(at): \\x needs two hex digits")
                }
                out.append(byte)
                chars = chars.dropFirst(2)
            default:
                throw FormatError(description: "\(at): unknown escape in => line (use \\r \\n \\t \\\\ \\xHH)")
            }
        }
        return out
    }
}
