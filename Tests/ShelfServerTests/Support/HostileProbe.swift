import ShelfJSON
import ShelfWire
import ShelfTestSupport
import Testing

/// One reply a hostile line is owed (protocol/PROTOCOL.md §1, §2, §8).
enum Owed: Sendable, Equatable, CustomStringConvertible {
    /// One reply object carrying `id`, with this outcome.
    case reply(id: JSONValue, Outcome)
    /// One batch reply: an array of answers carrying these ids, in order.
    case batch([JSONValue])

    /// What a reply object must hold besides its id.
    enum Outcome: Sendable, Equatable {
        /// A `result`.
        case result
        /// An `error` with this code.
        case error(Int)
        /// A `result` or an `error` (what the request does is not the point of the case).
        case any
    }

    var description: String {
        switch self {
        case .reply(let id, let outcome): "reply(id: \(Self.text(id)), \(outcome))"
        case .batch(let ids): "batch(\(ids.map(Self.text).joined(separator: ", ")))"
        }
    }

    /// Whether a reply that satisfies `other` satisfies this (an oracle's `.any` admits any outcome).
    func admits(_ other: Owed) -> Bool {
        switch (self, other) {
        case (.reply(let id, let outcome), .reply(let otherID, let otherOutcome)):
            Self.text(id) == Self.text(otherID) && (outcome == .any || outcome == otherOutcome)
        case (.batch(let ids), .batch(let otherIDs)):
            ids.map(Self.text) == otherIDs.map(Self.text)
        default:
            false
        }
    }

    /// An error reply with id null: what a line that cannot be read as a request gets.
    static func nullError(_ code: Int) -> Owed { .reply(id: .null, .error(code)) }

    /// The JSON text of `value` as the server writes it.
    static func text(_ value: JSONValue) -> String {
        String(decoding: JSONWriter.encode(value), as: UTF8.self)
    }
}

/// Says, from the protocol's rules alone, which replies a stream of bytes is owed: it frames the bytes (LF ends a
/// line, one CR before it is dropped, blank lines are ignored, a line over the limit gets one -32600), and for
/// each line decides from its JSON shape whether it is answered and with which id. It does not know what a
/// method does, so a well-formed request's outcome is `.any`.
enum HostileOracle {
    /// The replies owed for `bytes`, in order. The bytes must not start the connection (no BOM handling).
    static func owed(for stream: [UInt8], maxLineBytes: Int = LineFramer.defaultMaxLineBytes) -> [Owed] {
        let bytes = telnet(stream).data
        var owed: [Owed] = []
        var start = 0
        for (index, byte) in bytes.enumerated() where byte == 0x0A {
            var end = index
            if end > start, bytes[end - 1] == 0x0D { end -= 1 }
            let line = bytes[start..<end]
            start = index + 1
            if line.count > maxLineBytes {
                owed.append(.nullError(-32600))
            } else if line.contains(where: { $0 != 0x20 && $0 != 0x09 }), let reply = Self.owed(forLine: line) {
                owed.append(reply)
            }
        }
        return owed
    }

    /// The telnet rule (protocol/PROTOCOL.md §1) applied to a whole stream, written plainly: the data left once
    /// the commands are taken out (IAC IAC, or an IAC before a byte that starts no command, is a data 0xFF), and
    /// the refusals owed (`WONT x` for `DO x`, `DONT x` for `WILL x`), in order.
    static func telnet(_ bytes: [UInt8]) -> (data: [UInt8], replies: [UInt8]) {
        var data: [UInt8] = []
        var replies: [UInt8] = []
        var i = 0
        while i < bytes.count {
            guard bytes[i] == 0xFF else {
                data.append(bytes[i])
                i += 1
                continue
            }
            guard i + 1 < bytes.count else { return (data + [0xFF], replies) }
            let command = bytes[i + 1]
            switch command {
            case 0xFF:
                data.append(0xFF)
                i += 2
            case 0xFB...0xFE:
                guard i + 2 < bytes.count else { return (data, replies) }
                if command == 0xFD { replies += [0xFF, 0xFC, bytes[i + 2]] }
                if command == 0xFB { replies += [0xFF, 0xFE, bytes[i + 2]] }
                i += 3
            case 0xFA:
                // Up to and including IAC SE; IAC and any other byte stay inside.
                i += 2
                while i < bytes.count, !(bytes[i] == 0xFF && i + 1 < bytes.count && bytes[i + 1] == 0xF0) {
                    i += bytes[i] == 0xFF ? 2 : 1
                }
                i += 2
            case 0xF0...0xF9:
                i += 2
            default:
                data.append(0xFF)
                i += 1
            }
        }
        return (data, replies)
    }

    /// The reply owed for one complete line (framing already done), or `nil` when nothing is sent back.
    static func owed(forLine line: some Collection<UInt8>) -> Owed? {
        let value: JSONValue
        switch JSONParser.parseKeepingMembers(line) {
        case .success(let parsed):
            value = parsed
        case .failure(let failure):
            // An unpaired surrogate escape keeps a valid id read before it (protocol/PROTOCOL.md §8).
            if case .unpairedSurrogate = failure.error, let id = failure.membersBefore.last(where: { $0.key == "id" })?.value {
                switch id {
                case .string, .number, .null: return .reply(id: id, .error(-32700))
                default: break
                }
            }
            return .nullError(-32700)
        }
        guard case .array(let elements) = value else { return element(value) }
        if elements.isEmpty { return .nullError(-32600) }
        let answered = elements.compactMap(element)
        if answered.isEmpty { return nil }
        return .batch(answered.map { if case .reply(let id, _) = $0 { id } else { .null } })
    }

    /// The reply owed for one request (a line of its own or a batch element), or `nil` for a notification.
    private static func element(_ value: JSONValue) -> Owed? {
        guard case .object(let object) = value else { return .nullError(-32600) }
        var id: JSONValue?
        if let raw = object["id"] {
            switch raw {
            case .string, .number, .null: id = raw
            default: return .nullError(-32600)
            }
        }
        if let version = object["jsonrpc"], version != .string("2.0") {
            return .reply(id: id ?? .null, .error(-32600))
        }
        guard case .string(let method)? = object["method"] else { return .reply(id: id ?? .null, .error(-32600)) }
        guard let id else { return nil }
        switch object["params"] {
        case nil, .object?: return .reply(id: id, .any)
        case .some: return .reply(id: id, .error(MethodCall.methodNames.contains(method) ? -32602 : -32601))
        }
    }
}

/// Sends hostile bytes on one connection and proves the connection is still usable: after each chunk it sends an LF
/// and a `ping` with a fresh id, and reads until that `pong`. Everything read before the `pong` (server
/// notifications aside) must be exactly the replies owed, in order.
final class HostileProbe: Sendable {
    let connection: LineConnection
    private let probes = Counter()
    private let checked = Locked(0)

    /// How many reply lines have been checked so far, pongs included.
    var repliesChecked: Int { checked.withLock { $0 } }

    init(connection: LineConnection) {
        self.connection = connection
    }

    /// Sends `chunks` (one write each), then the probe; checks the replies.
    /// - Parameters:
    ///   - owed: the replies owed for the chunks; `nil` asks `HostileOracle` (for the chunks followed by the LF).
    ///   - label: names the case in failure messages, which also show the exact input.
    /// - Returns: the reply lines read before the `pong`.
    @discardableResult
    func check(
        _ chunks: [[UInt8]], owed: [Owed]? = nil, label: String, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> [String] {
        let input = chunks.flatMap { $0 }
        // Two IAC SE first: whatever telnet command the input left open, subnegotiation included, is over before
        // the LF (and in a stream with none they are dropped), so the ping is always read.
        let end: [UInt8] = [0xFF, 0xF0, 0xFF, 0xF0, 0x0A]
        let expected = owed ?? HostileOracle.owed(for: input + end)
        let expectedTelnet = HostileOracle.telnet(input + end).replies
        for chunk in chunks where !chunk.isEmpty {
            try await connection.send(bytes: chunk)
        }
        let probe = "probe-\(probes.next())"
        try await connection.send(bytes: end + Array("{\"id\":\"\(probe)\",\"method\":\"ping\"}\n".utf8))
        let pong = ExpectedLine.pong("\"\(probe)\"")
        var replies: [String] = []
        while true {
            guard let line = try await readLine(within: .seconds(10)) else {
                Issue.record(
                    "\(label): no pong for \(probe) (the server closed the connection or stopped answering) after \(replies.count) replies; input: \(HostileInput.describe(input))",
                    sourceLocation: sourceLocation)
                throw LineConnectionError.closed
            }
            checked.withLock { $0 += 1 }
            if line == pong { break }
            if Self.isServerNotification(line) { continue }
            replies.append(line)
            if replies.count > expected.count + 16 { break }
        }
        let telnet = connection.takeTelnetReplies()
        let problem = Self.mismatch(replies, expected)
            ?? (telnet == expectedTelnet ? nil : "telnet refusals \(telnet) for \(expectedTelnet) owed")
        if let problem {
            Issue.record(
                "\(label): \(problem); owed \(expected), got \(replies.map { String($0.prefix(300)) }); input: \(HostileInput.describe(input))",
                sourceLocation: sourceLocation)
        }
        return replies
    }

    /// Like `check`, for text.
    @discardableResult
    func check(
        _ text: String, owed: [Owed]? = nil, label: String? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> [String] {
        try await check([Array(text.utf8)], owed: owed, label: label ?? String(text.prefix(80)), sourceLocation: sourceLocation)
    }

    /// The next line, or `nil` when the connection closed or nothing came within `timeout`.
    private func readLine(within timeout: Duration) async throws -> String? {
        let connection = self.connection
        return try await result(within: timeout) { try await connection.readLine() } ?? nil
    }

    /// A `changed` notification (a fuzzed `watch` may have asked for them): `method` and no `id`.
    private static func isServerNotification(_ line: String) -> Bool {
        guard let object = (try? JSONParser.parse(Array(line.utf8)))?.objectValue else { return false }
        return object["id"] == nil && object["method"] != nil
    }

    /// What is wrong with `replies` given `owed`, or `nil` when they match.
    static func mismatch(_ replies: [String], _ owed: [Owed]) -> String? {
        if replies.count != owed.count { return "\(replies.count) replies for \(owed.count) owed" }
        for (index, (line, want)) in zip(replies, owed).enumerated() {
            guard let value = try? JSONParser.parse(Array(line.utf8)) else { return "reply \(index + 1) is not JSON" }
            switch want {
            case .reply(let id, let outcome):
                if let problem = replyMismatch(value, id: id, outcome: outcome) { return "reply \(index + 1): \(problem)" }
            case .batch(let ids):
                guard let answers = value.arrayValue else { return "reply \(index + 1) is not a batch array" }
                if answers.count != ids.count { return "reply \(index + 1) has \(answers.count) answers for \(ids.count)" }
                for (answer, id) in zip(answers, ids) {
                    if let problem = replyMismatch(answer, id: id, outcome: .any) { return "reply \(index + 1): \(problem)" }
                }
            }
        }
        return nil
    }

    private static func replyMismatch(_ value: JSONValue, id: JSONValue, outcome: Owed.Outcome) -> String? {
        guard let object = value.objectValue, object["jsonrpc"] == .string("2.0") else { return "not a JSON-RPC 2.0 reply" }
        // Compared as written, so that numbers keep their spelling and strings their exact code points.
        guard let got = object["id"], JSONWriter.encode(got) == JSONWriter.encode(id) else {
            return "id \(object["id"].map(Owed.text) ?? "missing") instead of \(Owed.text(id))"
        }
        let code = object["error"]?.objectValue?["code"]?.numberValue?.int64.map { Int($0) }
        switch outcome {
        case .result where object["result"] == nil: return "an error (\(code.map(String.init) ?? "?")) instead of a result"
        case .error(let wanted) where code != wanted: return "code \(code.map(String.init) ?? "none") instead of \(wanted)"
        case .any where object["result"] == nil && code == nil: return "neither result nor error"
        default: return nil
        }
    }
}

/// Renders inputs so that a failure message can be pasted back into a test.
enum HostileInput {
    /// A Swift string literal when the bytes are valid UTF-8, else a byte array literal; long inputs are shortened
    /// (the fuzz message gives the seed and iteration to regenerate them).
    static func describe(_ bytes: [UInt8], limit: Int = 1200) -> String {
        let shown = Array(bytes.prefix(limit))
        let more = bytes.count > limit ? " …(\(bytes.count) bytes in all)" : ""
        if let text = String(validating: shown, as: UTF8.self) {
            var literal = "\""
            for scalar in text.unicodeScalars {
                switch scalar {
                case "\"": literal += "\\\""
                case "\\": literal += "\\\\"
                case "\n": literal += "\\n"
                case "\r": literal += "\\r"
                case "\t": literal += "\\t"
                case " "..."~": literal.unicodeScalars.append(scalar)
                default: literal += "\\u{\(String(scalar.value, radix: 16))}"
                }
            }
            return literal + "\"" + more
        }
        return "[" + shown.map { "0x" + String($0, radix: 16, uppercase: true) }.joined(separator: ", ") + "]" + more
    }
}
