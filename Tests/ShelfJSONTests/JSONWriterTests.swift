import ShelfTestSupport
import Testing
import ShelfJSON

private func encoded(_ value: JSONValue) -> String {
    String(decoding: JSONWriter.encode(value), as: UTF8.self)
}

private func number(_ text: String) -> JSONValue {
    JSONNumber(text: text).map(JSONValue.number) ?? .null
}

/// Every U+0000–U+001F, plus the characters around them that must or must not be escaped.
private let awkwardString = String(String.UnicodeScalarView((0...0x7F).compactMap(Unicode.Scalar.init))) + "é€😀\u{2028}\u{FEFF}"

/// The escaping rules written as plainly as possible, one scalar at a time.
private func naiveEscape(_ string: String) -> String {
    var out = "\""
    for scalar in string.unicodeScalars {
        switch scalar {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case "\u{08}": out += "\\b"
        case "\u{0C}": out += "\\f"
        case "\n": out += "\\n"
        case "\r": out += "\\r"
        case "\t": out += "\\t"
        case "\u{0}"..."\u{1F}":
            let hex = String(scalar.value, radix: 16)
            out += "\\u00" + (hex.count == 1 ? "0" : "") + hex
        default: out.unicodeScalars.append(scalar)
        }
    }
    return out + "\""
}

struct JSONWriterTests {
    @Test(arguments: [
        (JSONValue.null, "null"),
        (.bool(true), "true"),
        (.bool(false), "false"),
        (number("-0"), "-0"),
        (number("1E+2"), "1E+2"),
        (number("18446744073709551616"), "18446744073709551616"),
        (.string(""), #""""#),
        (.string("a\"b\\c/d"), #""a\"b\\c/d""#),
        (.array([]), "[]"),
        (.object(JSONObject()), "{}"),
        ([1, "two", [true, .null], [:]], #"[1,"two",[true,null],{}]"#),
        (["b": 1, "a": ["x": [2, 3]], "b": 4], #"{"b":1,"a":{"x":[2,3]},"b":4}"#),
        (["line\nkey": "tab\there"], #"{"line\nkey":"tab\there"}"#),
        (.string("é😀中\u{7F}"), "\"é😀中\u{7F}\""),
    ] as [(JSONValue, String)])
    func writesCompactJSON(value: JSONValue, expected: String) {
        #expect(encoded(value) == expected)
    }

    @Test(arguments: Array(0...0x1F))
    func escapesEveryControlCharacter(code: Int) throws {
        let scalar = try #require(Unicode.Scalar(code))
        let expected: String = switch code {
        case 0x08: #"\b"#
        case 0x09: #"\t"#
        case 0x0A: #"\n"#
        case 0x0C: #"\f"#
        case 0x0D: #"\r"#
        default: #"\u00"# + (code < 0x10 ? "0" : "") + String(code, radix: 16)
        }
        let value = JSONValue.string("<\(Character(scalar))>")
        #expect(encoded(value) == "\"<\(expected)>\"")
        #expect(try JSONParser.parse(JSONWriter.encode(value)) == value)
    }

    @Test func neverEmitsRawLineBreaksOrControlBytes() {
        let value: JSONValue = [.string(awkwardString), [awkwardString: .string(awkwardString)], "\r\n", "\n\n\r"]
        let bytes = JSONWriter.encode(value)
        #expect(!bytes.contains(0x0A))
        #expect(!bytes.contains(0x0D))
        #expect(!bytes.contains { $0 < 0x20 })
    }

    @Test func nonASCIIPassesThroughAsUTF8() {
        let text = "é€😀中\u{2028}"
        #expect(JSONWriter.encode(.string(text)) == [0x22] + Array(text.utf8) + [0x22])
    }

    @Test(arguments: [
        JSONValue.null,
        true,
        false,
        0,
        -1,
        number("-0"),
        number("1e400"),
        number("-1.25E-7"),
        number("18446744073709551616"),
        number("9007199254740993"),
        "",
        .string(awkwardString),
        "\u{0}",
        [],
        [:],
        [["": 0]],
        ["a": 1, "a": 2, "b": [.null, false, ["c": "d"]]],
        [[[[[[[[[[["deep"]]]]]]]]]]],
        ["jsonrpc": "2.0", "id": number("18446744073709551616"), "result": ["items": [], "revision": 3]],
    ] as [JSONValue])
    func roundTripsThroughTheParser(value: JSONValue) throws {
        #expect(try JSONParser.parse(JSONWriter.encode(value)) == value)
    }

    @Test func roundTripsValuesAtTheParserDepthLimit() throws {
        var value: JSONValue = "core"
        for level in 0..<64 {
            value = level.isMultiple(of: 2) ? [value] : ["k": value]
        }
        #expect(try JSONParser.parse(JSONWriter.encode(value)) == value)
    }

    @Test(arguments: [
        #"{"jsonrpc":"2.0","id":18446744073709551616,"method":"list","params":{}}"#,
        #"[1E+2,-0,0.10,"\u0000\u001f\n\"\\",{"a":1,"a":2},"é😀"]"#,
    ])
    func reproducesCompactCanonicalInputByteForByte(text: String) throws {
        #expect(encoded(try JSONParser.parse(Array(text.utf8))) == text)
    }

    @Test(arguments: 1...50)
    func randomStringsMatchANaiveEscaperAndRoundTrip(seed: Int) throws {
        // Scalars whose UTF-8 bytes look like the special ASCII bytes plus 0x80 (0xA2, 0xDC, 0xA0, 0x9C, ...),
        // mixed with the special bytes themselves, at every alignment relative to the 8-byte scan.
        let alphabet: [Unicode.Scalar] = ["a", "\"", "\\", "\n", "\u{0}", "\u{1F}", " ", "/", "\u{7F}", "\u{A2}",
                                          "\u{A0}", "\u{DC}", "\u{301}", "\u{122}", "\u{2028}", "\u{FEFF}",
                                          "\u{1F600}", "\u{10FFFF}"]
        var random = SplitMix64(seed: UInt64(seed))
        let length = Int.random(in: 0...40, using: &random)
        var scalars = String.UnicodeScalarView()
        for _ in 0..<length {
            scalars.append(alphabet.randomElement(using: &random) ?? "a")
        }
        let string = String(scalars)
        #expect(encoded(.string(string)) == naiveEscape(string))
        #expect(try JSONParser.parse(JSONWriter.encode(.string(string))) == .string(string))
    }

    @Test func appendAddsToExistingBytes() {
        var out = Array("prefix:".utf8)
        JSONWriter.append(["x": 1], to: &out)
        JSONWriter.appendString("a\"b", to: &out)
        #expect(String(decoding: out, as: UTF8.self) == #"prefix:{"x":1}"a\"b""#)
    }

    @Test func appendStringEscapesLikeTheWriter() {
        var out: [UInt8] = []
        JSONWriter.appendString(awkwardString, to: &out)
        #expect(out == JSONWriter.encode(.string(awkwardString)))
    }

    @Test("integers are written in decimal exactly as String(_:) writes them, up to UInt64.max",
          arguments: [0, 7, 9, 10, 99, 100, 1_000_000, 12_345_678_901, UInt64.max - 1, UInt64.max] as [UInt64])
    func integers(_ value: UInt64) {
        var out: [UInt8] = [UInt8(ascii: "[")]
        JSONWriter.appendInteger(value, to: &out)
        #expect(out == Array("[\(value)".utf8))
    }

    @Test("a raw piece is appended byte for byte after what is there")
    func rawPieces() {
        var out: [UInt8] = Array("x".utf8)
        JSONWriter.appendRaw(#"{"revision":"#, to: &out)
        JSONWriter.appendRaw("", to: &out)
        #expect(out == Array(#"x{"revision":"#.utf8))
    }
}
