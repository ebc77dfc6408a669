import ShelfTestSupport

/// The fuzzer's generator: SplitMix64 (ShelfTestSupport), so a failure can be replayed from the
/// seed and iteration it prints.
typealias FuzzRandom = SplitMix64

extension SplitMix64 {
    /// True with probability `percent`/100.
    mutating func chance(_ percent: Int) -> Bool {
        Int.random(in: 0..<100, using: &self) < percent
    }

    mutating func pick<T>(_ choices: [T]) -> T {
        choices[Int.random(in: 0..<choices.count, using: &self)]
    }
}

/// Makes hostile inputs from a seed: random bytes, garbled requests, well-formed requests whose ids and params have
/// random types, and batches of any shape; each sent whole or split into several writes.
struct HostileFuzzer {
    enum Kind: String, CaseIterable, Sendable {
        case randomBytes, garbled, structured, batch
    }

    struct Case: Sendable {
        let kind: Kind
        /// The writes, in order; together they are the input.
        let chunks: [[UInt8]]
    }

    private var random: FuzzRandom

    init(seed: UInt64) {
        random = FuzzRandom(seed: seed)
    }

    /// The next input.
    mutating func next() -> Case {
        let kind = random.pick(Kind.allCases)
        let bytes: [UInt8] =
            switch kind {
            case .randomBytes: randomBytes()
            case .garbled: garble(random.chance(75) ? Array(request().utf8) : Array(batch().utf8))
            case .structured: Array(request().utf8)
            case .batch: Array(batch().utf8)
            }
        return Case(kind: kind, chunks: split(bytes))
    }

    // MARK: - Bytes

    /// Bytes that matter to a JSON parser, a UTF-8 decoder or a line framer.
    private static let interestingBytes: [UInt8] =
        Array(#"{}[]":,\-+.0123456789eEtrufalsn u"#.utf8) + [0x00, 0x0A, 0x0D, 0x09, 0x7F, 0x80, 0xBF, 0xC0, 0xC3, 0xE2, 0xED, 0xEF, 0xBB, 0xF0, 0xF4, 0xF5, 0xFF]

    private mutating func randomBytes() -> [UInt8] {
        let count = random.chance(10) ? Int.random(in: 256...4096, using: &random) : Int.random(in: 1...256, using: &random)
        return (0..<count).map { _ in
            random.chance(50) ? UInt8.random(in: 0...255, using: &random) : random.pick(Self.interestingBytes)
        }
    }

    /// Splits `bytes` into the writes that carry them: mostly one, sometimes several, short inputs sometimes one
    /// byte per write.
    private mutating func split(_ bytes: [UInt8]) -> [[UInt8]] {
        if bytes.count > 1, bytes.count <= 128, random.chance(5) { return bytes.map { [$0] } }
        guard bytes.count > 1, random.chance(30) else { return [bytes] }
        let cuts = Set((0..<Int.random(in: 1...5, using: &random)).map { _ in Int.random(in: 1..<bytes.count, using: &random) }).sorted()
        var chunks: [[UInt8]] = []
        var start = 0
        for cut in cuts + [bytes.count] {
            chunks.append(Array(bytes[start..<cut]))
            start = cut
        }
        return chunks
    }

    /// Applies one to four random edits: flip a bit, overwrite or insert an interesting byte or token, delete or
    /// repeat a span, cut the end off.
    private mutating func garble(_ input: [UInt8]) -> [UInt8] {
        var bytes = input
        let tokens = [
            #"""#, "\\", "\\u", "\\ud800", "\\u0000", "null", "true", "[]", "{}", "1e999999", "-", "0", ",", ":", #""id":"#,
            #""method":"ping""#, "\u{FEFF}", "\r", "\n", "\t", "é", "😀",
        ].map { Array($0.utf8) } + [[0x00], [0xFF], [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xEF, 0xBB, 0xBF], [0xE2, 0x82]]
        for _ in 0..<Int.random(in: 1...4, using: &random) where !bytes.isEmpty {
            let at = Int.random(in: 0..<bytes.count, using: &random)
            switch Int.random(in: 0..<7, using: &random) {
            case 0: bytes[at] ^= 1 << UInt8.random(in: 0...7, using: &random)
            case 1: bytes[at] = random.pick(Self.interestingBytes)
            case 2: bytes.insert(contentsOf: random.pick(tokens), at: at)
            case 3: bytes.removeSubrange(at..<min(bytes.count, at + Int.random(in: 1...8, using: &random)))
            case 4:
                let span = Array(bytes[at..<min(bytes.count, at + Int.random(in: 1...16, using: &random))])
                bytes.insert(contentsOf: span, at: at)
            case 5: bytes.removeSubrange(at...)
            default: bytes[at] = UInt8.random(in: 0...255, using: &random)
            }
        }
        return bytes
    }

    // MARK: - JSON

    /// A request object: members in random order, sometimes repeated; ids of any type; params of the right or a
    /// random type, or unknown ones.
    private mutating func request() -> String {
        let method = random.chance(88) ? random.pick(Self.methods.map(\.name)) : random.pick(["", "PING", "ping ", "nope", "pin\\u0067", "\\u0000"])
        var members: [String] = []
        if random.chance(30) { members.append(#""jsonrpc":"# + (random.chance(80) ? #""2.0""# : value(depth: 1))) }
        if random.chance(88) { members.append(#""id":"# + (random.chance(60) ? #""f\#(Int.random(in: 0...999, using: &random))""# : value(depth: 2))) }
        members.append(random.chance(95) ? #""method":"\#(method)""# : #""method":"# + value(depth: 1))
        if random.chance(75) { members.append(#""params":"# + (random.chance(92) ? params(for: method) : value(depth: 2))) }
        if random.chance(10), let again = members.randomElement(using: &random) { members.append(again) }
        if random.chance(5) { members.append(#""extra":"# + value(depth: 2)) }
        members.shuffle(using: &random)
        return "{" + members.joined(separator: ",") + "}"
    }

    private static let methods: [(name: String, params: [String])] = [
        ("hello", []), ("ping", []), ("auth", ["token"]), ("list", ["filter"]), ("get", ["id"]), ("add", ["title", "expect"]),
        ("mark", ["id", "read", "expect"]), ("toggle", ["id", "expect"]), ("rename", ["id", "title", "expect"]),
        ("remove", ["id", "expect"]), ("watch", ["since"]), ("unwatch", []),
    ]

    private mutating func params(for method: String) -> String {
        let names = Self.methods.first { $0.name == method }?.params ?? ["title"]
        var members: [String] = []
        for name in names where random.chance(80) {
            members.append(#""\#(name)":"# + (random.chance(65) ? validParam(name) : value(depth: 2)))
        }
        if random.chance(8) { members.append(#""\#(random.pick(["titel", "ID", "", "since", "read"]))":"# + value(depth: 1)) }
        if random.chance(8), let again = members.randomElement(using: &random) { members.append(again) }
        return "{" + members.joined(separator: ",") + "}"
    }

    private mutating func validParam(_ name: String) -> String {
        switch name {
        case "title": return random.chance(90) ? string() : #""   ""#
        case "id":
            let n = Int.random(in: 1...6, using: &random)
            let id = #""00000000-0000-0000-0000-00000000000\#(n)""#
            return random.chance(85) ? id : id.uppercased()
        case "read": return random.chance(50) ? "true" : "false"
        case "expect", "since": return random.chance(20) ? "null" : String(Int.random(in: 0...30, using: &random))
        case "filter": return random.pick([#""all""#, #""read""#, #""unread""#, #""ALL""#])
        default: return string()
        }
    }

    /// A batch: elements that are requests or any JSON value; sometimes empty.
    private mutating func batch() -> String {
        if random.chance(5) { return "[]" }
        let elements = (0..<Int.random(in: 1...8, using: &random)).map { _ in random.chance(75) ? request() : value(depth: 2) }
        return "[" + elements.joined(separator: ",") + "]"
    }

    private static let numbers = [
        "0", "-0", "1", "-1", "7", "1.5", "-1.5e3", "1e3", "1E+3", "1e-7", "1.0", "9007199254740993", "18446744073709551615",
        "18446744073709551616", "-9223372036854775809", "1e400", "-1e400", "1e-400", "123456789012345678901234567890",
    ]

    /// Any JSON value, nested at most `depth` more levels.
    private mutating func value(depth: Int) -> String {
        switch Int.random(in: 0..<(depth > 0 ? 7 : 5), using: &random) {
        case 0: return "null"
        case 1: return random.chance(50) ? "true" : "false"
        case 2:
            if random.chance(15) {
                return String((0..<Int.random(in: 20...400, using: &random)).map { _ in Character(String(Int.random(in: 0...9, using: &random))) }).replacingLeadingZero()
            }
            return random.pick(Self.numbers)
        case 3, 4: return string()
        case 5:
            return "[" + (0..<Int.random(in: 0...3, using: &random)).map { _ in value(depth: depth - 1) }.joined(separator: ",") + "]"
        default:
            let keys = ["a", "id", "title", "method", "", "é"]
            return "{" + (0..<Int.random(in: 0...3, using: &random)).map { _ in #""\#(random.pick(keys))":"# + value(depth: depth - 1) }.joined(separator: ",") + "}"
        }
    }

    /// A JSON string literal: letters, escapes, non-ASCII text; sometimes long.
    private mutating func string() -> String {
        let pieces = [
            "a", "Dune", " ", "é", "e\u{301}", "😀", "\u{202E}", "\u{FEFF}", "\\\"", "\\\\", "\\/", "\\n", "\\t", "\\u0000",
            "\\u00e9", "\\ud83d\\ude00", "\\u001f", "\\u007f", "\u{85}", "\u{2028}",
        ]
        let count = random.chance(3) ? Int.random(in: 500...1200, using: &random) : Int.random(in: 0...8, using: &random)
        return "\"" + (0..<count).map { _ in random.pick(pieces) }.joined() + "\""
    }
}

private extension String {
    /// Digits as a valid JSON number: a leading zero becomes 1.
    func replacingLeadingZero() -> String {
        hasPrefix("0") ? "1" + dropFirst() : self
    }
}
