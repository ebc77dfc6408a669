import ShelfJSON
import Testing

/// One hostile input with the replies it is owed: the exact bytes, sent in these writes (then an LF and a probe
/// `ping`, see `HostileProbe`).
struct HostileCase: Sendable, CustomTestStringConvertible {
    let name: String
    let chunks: [[UInt8]]
    let owed: [Owed]

    var testDescription: String { name }

    init(_ name: String, _ text: String, _ owed: Owed...) {
        self.name = name
        chunks = [Array(text.utf8)]
        self.owed = owed
    }

    init(_ name: String, bytes: [UInt8], _ owed: Owed...) {
        self.name = name
        chunks = [bytes]
        self.owed = owed
    }

    init(_ name: String, chunks: [[UInt8]], owed: [Owed]) {
        self.name = name
        self.chunks = chunks
        self.owed = owed
    }
}

extension Owed {
    /// A result for the request whose id is the JSON text `id`.
    static func ok(_ id: String) -> Owed { .reply(id: json(id), .result) }

    /// An error `code` for the request whose id is the JSON text `id`.
    static func error(_ id: String, _ code: Int) -> Owed { .reply(id: json(id), .error(code)) }

    /// A batch reply whose answers carry these ids (JSON texts).
    static func batchOf(_ ids: [String]) -> Owed { .batch(ids.map(json)) }

    /// The value of a JSON text written in a test (a broken one gives a string that no reply will match).
    static func json(_ text: String) -> JSONValue {
        (try? JSONParser.parse(Array(text.utf8))) ?? .string("unparseable test id: \(text)")
    }
}

/// The fixed hostile inputs of protocol/PROTOCOL.md §1, §2, §8 that the reliability issue lists, each with exactly
/// what it is owed.
enum HostileCases {
    private static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }
    private static let ping = #"{"id":1,"method":"ping"}"#

    // MARK: NUL bytes and other control characters

    static let controlCharacters: [HostileCase] = [
        HostileCase("a NUL byte alone", bytes: [0x00], .nullError(-32700)),
        HostileCase("1000 NUL bytes", bytes: Array(repeating: 0x00, count: 1000), .nullError(-32700)),
        HostileCase("a NUL before a request", bytes: [0x00] + bytes(ping), .nullError(-32700)),
        HostileCase("a NUL after a request", bytes: bytes(ping) + [0x00], .nullError(-32700)),
        HostileCase("a NUL between tokens", bytes: bytes(#"{"id":1,"#) + [0x00] + bytes(#""method":"ping"}"#), .nullError(-32700)),
        HostileCase("a raw NUL inside a string", bytes: bytes(#"{"id":"a"#) + [0x00] + bytes(#"b","method":"ping"}"#), .nullError(-32700)),
        HostileCase("a NUL line, then a good line in the same write", bytes: [0x00, 0x0A] + bytes(ping), .nullError(-32700), .ok("1")),
        HostileCase("an escaped NUL in an id is echoed", #"{"id":"a\u0000b","method":"ping"}"#, .ok(#""a\u0000b""#)),
        HostileCase("an escaped NUL in a title is error 1", #"{"id":2,"method":"add","params":{"title":"a\u0000b"}}"#, .error("2", 1)),
        HostileCase("an escaped NUL in a method name is -32601", #"{"id":3,"method":"ping\u0000"}"#, .error("3", -32601)),
        HostileCase("an escaped NUL in a param name is -32602", #"{"id":4,"method":"add","params":{"title\u0000":"x"}}"#, .error("4", -32602)),
        HostileCase("a lone CR line is not blank: -32700", bytes: [0x0D, 0x0D], .nullError(-32700)),
        HostileCase("a form feed between tokens is not JSON whitespace", bytes: bytes(#"{"id":1,"#) + [0x0C] + bytes(#""method":"ping"}"#), .nullError(-32700)),
        HostileCase("a CR between tokens is JSON whitespace", bytes: bytes(#"{"id":1,"#) + [0x0D] + bytes(#""method":"ping"}"#), .ok("1")),
        HostileCase("a raw tab inside a string is -32700", bytes: bytes(#"{"id":"a"#) + [0x09] + bytes(#"b","method":"ping"}"#), .nullError(-32700)),
        HostileCase("a raw DEL inside an id is allowed and echoed", bytes: bytes(#"{"id":"a"#) + [0x7F] + bytes(#"","method":"ping"}"#), .ok("\"a\u{7F}\"")),
        HostileCase("a raw DEL inside a title is error 1", bytes: bytes(#"{"id":5,"method":"add","params":{"title":"a"#) + [0x7F] + bytes(#"b"}}"#), .error("5", 1)),
        HostileCase("every byte value 0...255 in order (the LF splits it in two lines)", bytes: (0...255).map { UInt8($0) }, .nullError(-32700), .nullError(-32700)),
    ]

    // MARK: Invalid UTF-8 and byte order marks

    private static func inID(_ raw: [UInt8]) -> [UInt8] { bytes(#"{"id":"x"#) + raw + bytes(#"","method":"ping"}"#) }

    static let encoding: [HostileCase] = [
        HostileCase("a lone continuation byte in a string", bytes: inID([0x80]), .nullError(-32700)),
        HostileCase("an overlong '/' (C0 AF)", bytes: inID([0xC0, 0xAF]), .nullError(-32700)),
        HostileCase("an overlong NUL (C0 80)", bytes: inID([0xC0, 0x80]), .nullError(-32700)),
        HostileCase("a three-byte overlong (E0 80 AF)", bytes: inID([0xE0, 0x80, 0xAF]), .nullError(-32700)),
        HostileCase("a UTF-16 surrogate encoded in UTF-8 (ED A0 80)", bytes: inID([0xED, 0xA0, 0x80]), .nullError(-32700)),
        HostileCase("a code point above U+10FFFF (F4 90 80 80)", bytes: inID([0xF4, 0x90, 0x80, 0x80]), .nullError(-32700)),
        HostileCase("bytes F5 and FF", bytes: inID([0xF5, 0xFF]), .nullError(-32700)),
        HostileCase("a sequence cut short inside a string (E2 82)", bytes: inID([0xE2, 0x82]), .nullError(-32700)),
        HostileCase("a sequence cut short at the end of the line", bytes: bytes(ping) + [0xE2], .nullError(-32700)),
        HostileCase("invalid UTF-8 between tokens", bytes: bytes(#"{"id":1,"#) + [0xFF] + bytes(#""method":"ping"}"#), .nullError(-32700)),
        HostileCase("Latin-1 text in a title", bytes: bytes(#"{"id":6,"method":"add","params":{"title":"caf"#) + [0xE9] + bytes(#""}}"#), .nullError(-32700)),
        HostileCase("a request in UTF-16LE", bytes: bytes(ping).flatMap { [$0, 0x00] }, .nullError(-32700)),
        HostileCase("an invalid line, then a good one in the same write", bytes: [0xC3, 0x28, 0x0A] + bytes(ping), .nullError(-32700), .ok("1")),
        HostileCase("valid four-byte UTF-8 in an id is echoed", #"{"id":"😀 é","method":"ping"}"#, .ok("\"😀 é\"")),
        HostileCase("a BOM at the start of a later line", bytes: [0xEF, 0xBB, 0xBF] + bytes(ping), .nullError(-32700)),
        HostileCase("a BOM between tokens", bytes: bytes(#"{"id":1,"#) + [0xEF, 0xBB, 0xBF] + bytes(#""method":"ping"}"#), .nullError(-32700)),
        HostileCase("a BOM after a request", bytes: bytes(ping) + [0xEF, 0xBB, 0xBF], .nullError(-32700)),
        HostileCase("a BOM inside a string is a character", bytes: inID([0xEF, 0xBB, 0xBF]), .ok("\"x\u{FEFF}\"")),
        HostileCase("half a BOM on a line of its own", bytes: [0xEF, 0xBB], .nullError(-32700)),
    ]

    // MARK: Truncated and garbled JSON

    static let garbled: [HostileCase] = [
        HostileCase("a missing closing brace", #"{"id":1,"method":"ping""#, .nullError(-32700)),
        HostileCase("an extra closing brace", #"{"id":1,"method":"ping"}}"#, .nullError(-32700)),
        HostileCase("a closing bracket for a brace", #"{"id":1,"method":"ping"]"#, .nullError(-32700)),
        HostileCase("a double comma", #"{"id":1,,"method":"ping"}"#, .nullError(-32700)),
        HostileCase("a missing comma", #"{"id":1 "method":"ping"}"#, .nullError(-32700)),
        HostileCase("a colon for a comma", #"{"id":1:"method":"ping"}"#, .nullError(-32700)),
        HostileCase("a trailing comma", #"{"id":1,"method":"ping",}"#, .nullError(-32700)),
        HostileCase("a member without a value", #"{"id":1,"method":"ping","params":{"a":}}"#, .nullError(-32700)),
        HostileCase("a number as a key", #"{1:2}"#, .nullError(-32700)),
        HostileCase("single quotes", #"{'id':1,'method':'ping'}"#, .nullError(-32700)),
        HostileCase("a leading zero", #"{"id":01,"method":"ping"}"#, .nullError(-32700)),
        HostileCase("NaN", #"{"id":NaN,"method":"ping"}"#, .nullError(-32700)),
        HostileCase("Infinity", #"{"id":-Infinity,"method":"ping"}"#, .nullError(-32700)),
        HostileCase("a plus sign", #"{"id":+1,"method":"ping"}"#, .nullError(-32700)),
        HostileCase("a bare fraction", #"{"id":.5,"method":"ping"}"#, .nullError(-32700)),
        HostileCase("a dangling point", #"{"id":1.,"method":"ping"}"#, .nullError(-32700)),
        HostileCase("a lone minus", #"{"id":-,"method":"ping"}"#, .nullError(-32700)),
        HostileCase("hexadecimal", #"{"id":0x10,"method":"ping"}"#, .nullError(-32700)),
        HostileCase("a misspelt literal", #"{"id":tru,"method":"ping"}"#, .nullError(-32700)),
        HostileCase("a literal with a tail", #"{"id":nullx,"method":"ping"}"#, .nullError(-32700)),
        HostileCase("two values on one line", ping + ping, .nullError(-32700)),
        HostileCase("a value followed by text", ping + " x", .nullError(-32700)),
        HostileCase("a comment", ping + " /* c */", .nullError(-32700)),
        HostileCase("an unterminated string", #"{"id":"unterminated"#, .nullError(-32700)),
        HostileCase("an unknown escape", #"{"id":"\x","method":"ping"}"#, .nullError(-32700)),
        HostileCase("a short \\u escape", #"{"id":"\u12","method":"ping"}"#, .nullError(-32700)),
        HostileCase("a lone high surrogate escape", #"{"id":"\ud800","method":"ping"}"#, .nullError(-32700)),
        HostileCase("surrogate escapes in the wrong order", #"{"id":"\udc00\ud800","method":"ping"}"#, .nullError(-32700)),
        HostileCase("spaces around a request are fine", "   " + ping + "  \t ", .ok("1")),
        HostileCase("valid JSON that is not a request: true", "true", .nullError(-32600)),
        HostileCase("valid JSON that is not a request: a string", #""ping""#, .nullError(-32600)),
        HostileCase("valid JSON that is not a request: a number", "42", .nullError(-32600)),
        HostileCase("valid JSON that is not a request: null", "null", .nullError(-32600)),
        HostileCase("an empty object", "{}", .nullError(-32600)),
        HostileCase("a method that is not a string keeps the id", #"{"id":9,"method":1}"#, .error("9", -32600)),
        HostileCase("a wrong jsonrpc keeps the id", #"{"jsonrpc":2.0,"id":9,"method":"ping"}"#, .error("9", -32600)),
        HostileCase("a notification with a wrong jsonrpc is answered with id null", #"{"jsonrpc":"1.0","method":"ping"}"#, .nullError(-32600)),
        HostileCase("a notification with bad params gets nothing", #"{"method":"add","params":[1]}"#),
        HostileCase("a notification of an unknown method gets nothing", #"{"method":"nope"}"#),
    ]

    // MARK: Nesting

    private static func repeated(_ text: String, _ count: Int) -> String { String(repeating: text, count: count) }

    static let nesting: [HostileCase] = [
        HostileCase("100,000 nested arrays", repeated("[", 100_000) + repeated("]", 100_000), .nullError(-32700)),
        HostileCase("100,000 opening brackets", repeated("[", 100_000), .nullError(-32700)),
        HostileCase("100,000 closing brackets", repeated("]", 100_000), .nullError(-32700)),
        HostileCase("100,000 nested objects", repeated(#"{"a":"#, 100_000) + "1" + repeated("}", 100_000), .nullError(-32700)),
        HostileCase("100,000 alternating arrays and objects", repeated(#"[{"a":"#, 50_000) + "1" + repeated("}]", 50_000), .nullError(-32700)),
        HostileCase("100,000 brackets as a title", #"{"id":1,"method":"add","params":{"title":"# + repeated("[", 100_000) + repeated("]", 100_000) + "}}", .nullError(-32700)),
        HostileCase("100,000 brackets as an id", #"{"id":"# + repeated("[", 100_000) + repeated("]", 100_000) + #","method":"ping"}"#, .nullError(-32700)),
        HostileCase("100,000 brackets inside a string are text", #"{"id":"# + "\"" + repeated("[", 100_000) + "\"" + #","method":"ping"}"#, .ok("\"" + repeated("[", 100_000) + "\"")),
        HostileCase("nesting of exactly 64 is read", #"{"id":1,"method":"ping","x":"# + repeated("[", 63) + repeated("]", 63) + "}", .ok("1")),
        HostileCase("nesting of 65 is -32700", #"{"id":1,"method":"ping","x":"# + repeated("[", 64) + repeated("]", 64) + "}", .nullError(-32700)),
    ]

    // MARK: Huge numbers

    private static let manyDigits = "9" + repeated("8", 99_999)

    static let numbers: [HostileCase] = [
        HostileCase("expect of 2^64 is -32602", #"{"id":1,"method":"add","params":{"title":"x","expect":18446744073709551616}}"#, .error("1", -32602)),
        HostileCase("expect of 1e400 is -32602", #"{"id":1,"method":"add","params":{"title":"x","expect":1e400}}"#, .error("1", -32602)),
        HostileCase("expect of 100,000 digits is -32602", #"{"id":1,"method":"add","params":{"title":"x","expect":"# + manyDigits + "}}", .error("1", -32602)),
        HostileCase("expect of -1 is -32602", #"{"id":1,"method":"add","params":{"title":"x","expect":-1}}"#, .error("1", -32602)),
        HostileCase("expect of 1.0 is -32602", #"{"id":1,"method":"add","params":{"title":"x","expect":1.0}}"#, .error("1", -32602)),
        HostileCase("expect of 1e0 is -32602", #"{"id":1,"method":"add","params":{"title":"x","expect":1e0}}"#, .error("1", -32602)),
        HostileCase("expect of 2^64-1 is a conflict", #"{"id":1,"method":"add","params":{"title":"x","expect":18446744073709551615}}"#, .error("1", 3)),
        HostileCase("since of 2^64-1 is ahead of the list: 6", #"{"id":1,"method":"watch","params":{"since":18446744073709551615}}"#, .error("1", 6)),
        HostileCase("since of -1e-400 is -32602", #"{"id":1,"method":"watch","params":{"since":-1e-400}}"#, .error("1", -32602)),
        HostileCase("a title of 1e400 is -32602", #"{"id":1,"method":"add","params":{"title":1e400}}"#, .error("1", -32602)),
        HostileCase("a read flag of 1e400 is -32602", #"{"id":1,"method":"mark","params":{"id":"00000000-0000-0000-0000-000000000001","read":1e400}}"#, .error("1", -32602)),
        HostileCase("an id of 1e999999999 is echoed exactly", #"{"id":1e999999999,"method":"ping"}"#, .ok("1e999999999")),
        HostileCase("an id of 100,000 digits is echoed exactly", #"{"id":"# + manyDigits + #","method":"ping"}"#, .ok(manyDigits)),
        HostileCase("an id of 100,000 fraction digits", #"{"id":0."# + manyDigits + #","method":"nope"}"#, .error("0." + manyDigits, -32601)),
    ]

    // MARK: Duplicate keys (the last one wins, PROTOCOL.md §2)

    static let duplicateKeys: [HostileCase] = [
        HostileCase("two ids: the second is used", #"{"id":1,"id":2,"method":"ping"}"#, .ok("2")),
        HostileCase("an invalid id overridden by a valid one", #"{"id":true,"id":3,"method":"ping"}"#, .ok("3")),
        HostileCase("a valid id overridden by an invalid one", #"{"id":3,"id":true,"method":"ping"}"#, .nullError(-32600)),
        HostileCase("an id overridden by null", #"{"id":3,"method":"ping","id":null}"#, .ok("null")),
        HostileCase("an id spelt with an escape overrides the plain one", #"{"id":8,"\u0069d":9,"method":"ping"}"#, .ok("9")),
        HostileCase("an unknown method overridden by ping", #"{"id":1,"method":"nope","method":"ping"}"#, .ok("1")),
        HostileCase("ping overridden by an unknown method", #"{"id":1,"method":"ping","method":"nope"}"#, .error("1", -32601)),
        HostileCase("a bad jsonrpc overridden by 2.0", #"{"jsonrpc":"1.0","jsonrpc":"2.0","id":4,"method":"ping"}"#, .ok("4")),
        HostileCase("2.0 overridden by a bad jsonrpc", #"{"jsonrpc":"2.0","jsonrpc":"1.0","id":4,"method":"ping"}"#, .error("4", -32600)),
        HostileCase("array params overridden by an object", #"{"id":5,"method":"ping","params":[],"params":{}}"#, .ok("5")),
        HostileCase("object params overridden by an array", #"{"id":5,"method":"ping","params":{},"params":[]}"#, .error("5", -32602)),
        HostileCase("a bad filter overridden by a good one", #"{"id":7,"method":"list","params":{"filter":"nope","filter":"all"}}"#, .ok("7")),
        HostileCase("a good filter overridden by a bad one", #"{"id":7,"method":"list","params":{"filter":"all","filter":"nope"}}"#, .error("7", -32602)),
        HostileCase("a mistyped title overridden by a string", #"{"id":8,"method":"add","params":{"title":1,"title":"Dune"}}"#, .ok("8")),
        HostileCase("a stale expect overridden by null", #"{"id":9,"method":"add","params":{"title":"x","expect":99,"expect":null}}"#, .ok("9")),
    ]

    // MARK: Ids of every JSON type and size

    private static func pingCase(_ name: String, id: String) -> HostileCase {
        HostileCase(name, #"{"id":"# + id + #","method":"ping"}"#, .ok(id))
    }

    static let ids: [HostileCase] = [
        pingCase("an empty string id", id: #""""#),
        pingCase("a decomposed é id keeps its code points", id: "\"e\u{301}\""),
        pingCase("a precomposed é id keeps its code point", id: "\"\u{E9}\""),
        pingCase("an id of escapes", id: #""\"\\\/\b\f\n\r\t\u0001\u001f\u007f""#),
        pingCase("an id with an escaped surrogate pair", id: #""\ud83d\ude00""#),
        pingCase("an id with line separators", id: #""\u2028\u2029""#),
        pingCase("an id that looks like a probe", id: #""probe-1""#),
        pingCase("an id of 100,000 characters", id: "\"" + repeated("ab", 50_000) + "\""),
        pingCase("a zero id", id: "0"),
        pingCase("a negative zero id", id: "-0"),
        pingCase("a negative id", id: "-1"),
        pingCase("a fraction id", id: "1.5"),
        pingCase("1.0 stays 1.0", id: "1.0"),
        pingCase("an exponent id", id: "-1.5e3"),
        pingCase("a capital exponent with a plus", id: "1E+3"),
        pingCase("2^53 + 1", id: "9007199254740993"),
        pingCase("2^64 - 1", id: "18446744073709551615"),
        pingCase("2^64", id: "18446744073709551616"),
        pingCase("below Int64.min", id: "-9223372036854775809"),
        pingCase("an id too large for a Double", id: "1e400"),
        pingCase("an id too small for a Double", id: "1e-400"),
        pingCase("a null id is a request", id: "null"),
        HostileCase("a true id is -32600 with id null", #"{"id":true,"method":"ping"}"#, .nullError(-32600)),
        HostileCase("a false id is -32600 with id null", #"{"id":false,"method":"ping"}"#, .nullError(-32600)),
        HostileCase("an empty array id is -32600 with id null", #"{"id":[],"method":"ping"}"#, .nullError(-32600)),
        HostileCase("an array id is -32600 with id null", #"{"id":[1],"method":"ping"}"#, .nullError(-32600)),
        HostileCase("an empty object id is -32600 with id null", #"{"id":{},"method":"ping"}"#, .nullError(-32600)),
        HostileCase("an object id is -32600 with id null", #"{"id":{"id":1},"method":"ping"}"#, .nullError(-32600)),
        HostileCase("a huge id on an unknown method", #"{"id":1e400,"method":"nope"}"#, .error("1e400", -32601)),
    ]

    // MARK: Batches of every shape

    static let batches: [HostileCase] = [
        HostileCase("an empty batch", "[]", .nullError(-32600)),
        HostileCase("an empty batch with spaces", "[ \t ]", .nullError(-32600)),
        HostileCase("a batch of one number", "[1]", .batchOf(["null"])),
        HostileCase("a batch of every non-request value", #"[1,"a",null,true,[],{}]"#, .batchOf(Array(repeating: "null", count: 6))),
        HostileCase("a batch holding an empty batch", "[[]]", .batchOf(["null"])),
        HostileCase("a batch holding a batch", #"[[{"id":1,"method":"ping"}]]"#, .batchOf(["null"])),
        HostileCase("a batch of one notification gets nothing", #"[{"method":"ping"}]"#),
        HostileCase("a batch of failing notifications gets nothing", #"[{"method":"ping"},{"method":"nope"},{"method":"add","params":[]},{"method":"get","params":{"id":"x"}}]"#),
        HostileCase(
            "a mixed batch: answers in order, notifications left out",
            #"[{"id":1,"method":"ping"},{"method":"ping"},{"id":2,"method":"nope"},5,{"id":3,"method":"add","params":"x"},{"id":true,"method":"ping"}]"#,
            .batchOf(["1", "2", "null", "3", "null"])),
        HostileCase("a batch with the same id twice", #"[{"id":1,"method":"ping"},{"id":1,"method":"ping"}]"#, .batchOf(["1", "1"])),
        HostileCase("a batch with ids of every type", #"[{"id":"s","method":"ping"},{"id":-0,"method":"ping"},{"id":null,"method":"ping"},{"id":1e400,"method":"ping"},{"id":{},"method":"ping"}]"#, .batchOf([#""s""#, "-0", "null", "1e400", "null"])),
        HostileCase("a batch with a trailing comma", #"[{"id":1,"method":"ping"},]"#, .nullError(-32700)),
        HostileCase("a batch missing its bracket", #"[{"id":1,"method":"ping"}"#, .nullError(-32700)),
        HostileCase("a batch nested 64 deep", repeated("[", 64) + repeated("]", 64), .batchOf(["null"])),
        HostileCase("a batch nested 65 deep", repeated("[", 65) + repeated("]", 65), .nullError(-32700)),
        HostileCase("a batch with a 100,000-deep element", "[1," + repeated("[", 100_000) + repeated("]", 100_000) + "]", .nullError(-32700)),
        HostileCase("a batch of 1000 pings", "[" + (1...1000).map { #"{"id":\#($0),"method":"ping"}"# }.joined(separator: ",") + "]", .batchOf((1...1000).map(String.init))),
        HostileCase(
            "a batch that watches, adds and unwatches (its notification comes too)",
            #"[{"id":1,"method":"watch"},{"id":2,"method":"add","params":{"title":"Dune"}},{"id":3,"method":"unwatch"}]"#,
            .batchOf(["1", "2", "3"])),
        HostileCase(
            "a batch of every method with wrong params",
            "[" + ["hello", "ping", "auth", "list", "get", "add", "mark", "toggle", "rename", "remove", "watch", "unwatch"]
                .enumerated().map { #"{"id":\#($0.offset),"method":"\#($0.element)","params":{"bogus":[]}}"# }.joined(separator: ",") + "]",
            .batchOf((0..<12).map(String.init))),
    ]

    // MARK: Wrong types for every param

    /// Every method's params, each replaced in turn by a value of every wrong type (plus malformed values of the
    /// right type), the others valid; and `params` itself of every type but object. Each is -32602 with its id.
    static var wrongParamTypes: [(line: String, owed: Owed)] {
        let uuid = #""00000000-0000-0000-0000-000000000001""#
        let valid: [String: String] = [
            "title": #""Dune""#, "id": uuid, "read": "true", "expect": "0", "since": "0", "filter": #""all""#, "token": #""t""#,
        ]
        let kinds: [String: Set<String>] = [
            "title": ["string"], "id": ["string"], "read": ["bool"], "expect": ["number", "null"], "since": ["number", "null"],
            // `filter: null` is the same as leaving it out, as every list param's null (protocol/PROTOCOL.md §2).
            "filter": ["string", "null"], "token": ["string"],
        ]
        let samples: [(kind: String, text: String)] = [
            ("string", #""x""#), ("number", "1"), ("number", "-2.5e3"), ("bool", "true"), ("bool", "false"), ("null", "null"),
            ("array", "[]"), ("array", #"["Dune"]"#), ("object", "{}"), ("object", #"{"title":"Dune"}"#),
        ]
        let malformed: [String: [String]] = [
            "id": [#""{00000000-0000-0000-0000-000000000001}""#, #""00000000000000000000000000000001""#, #"" 00000000-0000-0000-0000-000000000001""#],
            "expect": ["-1", "1.5", "1e0", "18446744073709551616"], "since": ["-1", "0.0"],
            "filter": [#""ALL""#, #""""#],
        ]
        let methods: [(String, [String])] = [
            ("hello", []), ("ping", []), ("auth", ["token"]), ("list", ["filter"]), ("get", ["id"]), ("add", ["title", "expect"]),
            ("mark", ["id", "read", "expect"]), ("toggle", ["id", "expect"]), ("rename", ["id", "title", "expect"]),
            ("remove", ["id", "expect"]), ("watch", ["since"]), ("unwatch", []),
        ]
        var cases: [(String, Owed)] = []
        func add(_ method: String, params: String) {
            let id = "\"\(method)-\(cases.count)\""
            cases.append((#"{"id":\#(id),"method":"\#(method)","params":\#(params)}"#, .error(id, -32602)))
        }
        for (method, names) in methods {
            for name in names {
                let wrongs = samples.filter { !kinds[name, default: []].contains($0.kind) || ($0.kind == "string" && name == "id") }
                    .map(\.text) + (malformed[name] ?? [])
                for wrong in wrongs {
                    let members = names.map { other in #""\#(other)":\#(other == name ? wrong : valid[other] ?? "0")"# }
                    add(method, params: "{" + members.joined(separator: ",") + "}")
                }
                let others = names.filter { $0 != name }.map { #""\#($0)":\#(valid[$0] ?? "0")"# }
                if !["expect", "since", "filter"].contains(name) {
                    add(method, params: "{" + others.joined(separator: ",") + "}")  // a required param missing
                }
            }
            add(method, params: #"{"bogus":1}"#)
            for notObject in ["[]", #"["Dune"]"#, "null", #""Dune""#, "1", "true"] {
                add(method, params: notObject)
            }
        }
        return cases
    }
}
