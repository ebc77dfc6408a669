import Testing
@testable import ShelfJSON

/// Parses the UTF-8 of `text`.
private func parse(_ text: String, maxDepth: Int = 64) throws(JSONParseError) -> JSONValue {
    try JSONParser.parse(Array(text.utf8), maxDepth: maxDepth)
}

/// The error `parse` throws, or nil if it succeeds.
private func parseError(_ bytes: [UInt8], maxDepth: Int = 64) -> JSONParseError? {
    do throws(JSONParseError) {
        _ = try JSONParser.parse(bytes, maxDepth: maxDepth)
        return nil
    } catch {
        return error
    }
}

private func number(_ text: String) -> JSONValue {
    .number(JSONNumber(uncheckedText: text))
}

private func ascii(_ character: Character) -> UInt8 {
    character.asciiValue ?? 0
}

struct JSONParserTests {
    // MARK: Accepted

    @Test(arguments: [
        ("null", JSONValue.null),
        ("true", .bool(true)),
        ("false", .bool(false)),
        ("0", number("0")),
        ("-0", number("-0")),
        ("1E+2", number("1E+2")),
        ("1e-2", number("1e-2")),
        ("1E5", number("1E5")),
        ("-1.5e10", number("-1.5e10")),
        ("0.5", number("0.5")),
        ("1.0", number("1.0")),
        ("-0.0e-0", number("-0.0e-0")),
        ("1e400", number("1e400")),
        ("18446744073709551616", number("18446744073709551616")),
        ("9007199254740993", number("9007199254740993")),
        ("-123456789012345678901234567890", number("-123456789012345678901234567890")),
        ("\"\"", .string("")),
        ("\"abc\"", .string("abc")),
        ("\"é😀中\"", .string("é😀中")),
        ("[]", .array([])),
        ("{}", .object(JSONObject())),
        ("[1,\"a\",null]", .array([number("1"), .string("a"), .null])),
        ("{\"a\":[]}", .object(JSONObject([("a", .array([]))]))),
        ("[[],{}]", .array([.array([]), .object(JSONObject())])),
        (" \t\r\n[ 1 , { \"k\" : true } ] \n\r\t ", .array([number("1"), .object(JSONObject([("k", .bool(true))]))])),
        ("{\"\":0}", .object(JSONObject([("", number("0"))]))),
    ])
    func acceptsValidJSONText(input: String, expected: JSONValue) throws {
        #expect(try parse(input) == expected)
    }

    @Test(arguments: [
        (#""\"""#, "\""),
        (#""\\""#, "\\"),
        (#""\/""#, "/"),
        (#""/""#, "/"),
        (#""\b\f\n\r\t""#, "\u{08}\u{0C}\n\r\t"),
        (#""\u0041\u00e9\u20AC""#, "Aé€"),
        (#""\u0000""#, "\u{0}"),
        (#""\u001f""#, "\u{1F}"),
        (#""\u2028\u2029""#, "\u{2028}\u{2029}"),
        (#""\ud83d\ude00""#, "😀"),
        (#""\uD83D\uDE00""#, "😀"),
        (#""\udbff\udfff""#, "\u{10FFFF}"),
        (#""a\nb\u0020c""#, "a\nb c"),
        (#""plain then \"escaped\" then plain""#, "plain then \"escaped\" then plain"),
        (#""é\u00e9😀""#, "éé😀"),
    ])
    func decodesStringEscapes(input: String, expected: String) throws {
        #expect(try parse(input) == .string(expected))
    }

    @Test(arguments: [
        ([0xC2, 0x80], "\u{80}"),
        ([0xDF, 0xBF], "\u{7FF}"),
        ([0xE0, 0xA0, 0x80], "\u{800}"),
        ([0xED, 0x9F, 0xBF], "\u{D7FF}"),
        ([0xEE, 0x80, 0x80], "\u{E000}"),
        ([0xEF, 0xBF, 0xBF], "\u{FFFF}"),
        ([0xF0, 0x90, 0x80, 0x80], "\u{10000}"),
        ([0xF4, 0x8F, 0xBF, 0xBF], "\u{10FFFF}"),
    ] as [([UInt8], String)])
    func acceptsUTF8AtEveryBoundary(encoded: [UInt8], expected: String) throws {
        let input: [UInt8] = [0x22] + encoded + [0x22]
        #expect(try JSONParser.parse(input) == .string(expected))
    }

    @Test(arguments: 0..<24)
    func findsSpecialBytesAtEveryPositionOfALongString(position: Int) throws {
        let before = String(repeating: "a", count: position)
        let after = String(repeating: "b", count: 23 - position)
        #expect(parseError(Array("\"\(before)\u{1}\(after)\"".utf8)) == .controlCharacterInString(offset: position + 1))
        #expect(parseError(Array("\"\(before)\\q\(after)\"".utf8)) == .invalidEscape(offset: position + 1))
        #expect(try parse("\"\(before)\\n\(after)\"") == .string(before + "\n" + after))
        #expect(try parse("[\"\(before)\", \"\(after)\"]") == .array([.string(before), .string(after)]))
        #expect(try parse("\"\(before)é\\u00e9\(after)¢\"") == .string(before + "éé" + after + "¢"))
    }

    @Test func bigIntegersKeepTheirExactText() throws {
        let value = try parse("[18446744073709551616, 9007199254740993, -0, 1E+2]")
        let texts = value.arrayValue?.compactMap { $0.numberValue?.text }
        #expect(texts == ["18446744073709551616", "9007199254740993", "-0", "1E+2"])
        #expect(String(decoding: JSONWriter.encode(value), as: UTF8.self)
            == "[18446744073709551616,9007199254740993,-0,1E+2]")
    }

    @Test func duplicateKeysAreAllKeptAndTheLastWinsOnLookup() throws {
        let object = try #require(try parse(#"{"a":1,"b":true,"a":2}"#).objectValue)
        #expect(object["a"] == number("2"))
        #expect(object["b"] == .bool(true))
        #expect(object["c"] == nil)
        #expect(object.keys == ["a", "b", "a"])
        #expect(object.members.map(\.value) == [number("1"), .bool(true), number("2")])
        #expect(String(decoding: JSONWriter.encode(.object(object)), as: UTF8.self) == #"{"a":1,"b":true,"a":2}"#)
    }

    @Test("on failure, the outermost object's members completed before the error are kept, in order",
          arguments: [
              (#"{"id":1,"a":[1,{"b":2}],"t":"x\ud800"}"#, ["id", "a"]),
              (#"{"id":1,"a":{"id":2,"t":"\ud800"}}"#, ["id"]),
              (#"{"id":1,"id":2,"t":"#, ["id", "id"]),
              (#"{"id":1}x"#, []),
              (#"[{"id":1},"\ud800"]"#, []),
          ])
    func failureKeepsTheMembersBefore(text: String, keys: [String]) {
        guard case .failure(let failure) = JSONParser.parseKeepingMembers(Array(text.utf8)) else {
            Issue.record("\(text) parsed")
            return
        }
        #expect(failure.membersBefore.map(\.key) == keys)
        #expect(failure.error == parseError(Array(text.utf8)))
    }

    @Test func objectMembersKeepSourceOrder() throws {
        let object = try #require(try parse(#"{"z":1,"a":2,"m":3}"#).objectValue)
        #expect(object.keys == ["z", "a", "m"])
    }

    // MARK: Rejected

    @Test(arguments: [
        // Empty input and unfinished values.
        ("", JSONParseError.unexpectedEnd),
        ("   \n", .unexpectedEnd),
        ("[", .unexpectedEnd),
        ("[1", .unexpectedEnd),
        ("[1,", .unexpectedEnd),
        ("{", .unexpectedEnd),
        (#"{"a""#, .unexpectedEnd),
        (#"{"a":"#, .unexpectedEnd),
        (#"{"a":1"#, .unexpectedEnd),
        (#""abc"#, .unexpectedEnd),
        (#""\"#, .unexpectedEnd),
        (#""\""#, .unexpectedEnd),
        (#""\u00"#, .unexpectedEnd),
        (#""\ud800"#, .unexpectedEnd),
        ("tru", .unexpectedEnd),
        ("nul", .unexpectedEnd),
        // Trailing commas, missing separators, mismatched brackets.
        ("[1,]", .unexpectedByte(ascii("]"), offset: 3)),
        (#"{"a":1,}"#, .unexpectedByte(ascii("}"), offset: 7)),
        ("[,1]", .unexpectedByte(ascii(","), offset: 1)),
        ("{,}", .unexpectedByte(ascii(","), offset: 1)),
        ("[1 2]", .unexpectedByte(ascii("2"), offset: 3)),
        (#"{"a" 1}"#, .unexpectedByte(ascii("1"), offset: 5)),
        (#"{"a":1 "b":2}"#, .unexpectedByte(ascii("\""), offset: 7)),
        ("[1}", .unexpectedByte(ascii("}"), offset: 2)),
        (#"{"a":1]"#, .unexpectedByte(ascii("]"), offset: 6)),
        ("]", .unexpectedByte(ascii("]"), offset: 0)),
        ("[:]", .unexpectedByte(ascii(":"), offset: 1)),
        // Single quotes and unquoted keys.
        ("['a']", .unexpectedByte(ascii("'"), offset: 1)),
        ("{'a':1}", .unexpectedByte(ascii("'"), offset: 1)),
        ("{a:1}", .unexpectedByte(ascii("a"), offset: 1)),
        ("{1:1}", .unexpectedByte(ascii("1"), offset: 1)),
        // Numbers outside the RFC 8259 §6 grammar.
        ("01", .invalidNumber(offset: 0)),
        ("-01", .invalidNumber(offset: 0)),
        ("[00]", .invalidNumber(offset: 1)),
        ("+1", .unexpectedByte(ascii("+"), offset: 0)),
        (".5", .unexpectedByte(ascii("."), offset: 0)),
        ("1.", .invalidNumber(offset: 0)),
        ("1.e3", .invalidNumber(offset: 0)),
        ("1e", .invalidNumber(offset: 0)),
        ("1e+", .invalidNumber(offset: 0)),
        ("1E-x", .invalidNumber(offset: 0)),
        ("-", .invalidNumber(offset: 0)),
        ("- 1", .invalidNumber(offset: 0)),
        ("NaN", .unexpectedByte(ascii("N"), offset: 0)),
        ("Infinity", .unexpectedByte(ascii("I"), offset: 0)),
        ("-Infinity", .invalidNumber(offset: 0)),
        ("0x10", .trailingData(offset: 1)),
        ("[0x10]", .unexpectedByte(ascii("x"), offset: 2)),
        ("1.5.2", .trailingData(offset: 3)),
        // Literals are lowercase and exact.
        ("True", .unexpectedByte(ascii("T"), offset: 0)),
        ("truE", .unexpectedByte(ascii("E"), offset: 3)),
        ("nulll", .trailingData(offset: 4)),
        ("undefined", .unexpectedByte(ascii("u"), offset: 0)),
        // Comments.
        ("// c\n1", .unexpectedByte(ascii("/"), offset: 0)),
        ("/* c */ 1", .unexpectedByte(ascii("/"), offset: 0)),
        ("[1] // c", .trailingData(offset: 4)),
        ("[1 /* c */]", .unexpectedByte(ascii("/"), offset: 3)),
        // Whitespace is only space, tab, LF and CR.
        ("\u{0C}1", .unexpectedByte(0x0C, offset: 0)),
        ("\u{0B}1", .unexpectedByte(0x0B, offset: 0)),
        ("\u{A0}1", .unexpectedByte(0xC2, offset: 0)),
        ("[1,\u{0}2]", .unexpectedByte(0x00, offset: 3)),
        // Raw control characters in strings.
        ("\"a\tb\"", .controlCharacterInString(offset: 2)),
        ("\"a\nb\"", .controlCharacterInString(offset: 2)),
        ("\"a\rb\"", .controlCharacterInString(offset: 2)),
        ("\"\u{0}\"", .controlCharacterInString(offset: 1)),
        ("\"\u{1F}\"", .controlCharacterInString(offset: 1)),
        ("\"\\n\u{1}\"", .controlCharacterInString(offset: 3)),
        // Escapes.
        (#""\x41""#, .invalidEscape(offset: 1)),
        (#""\'""#, .invalidEscape(offset: 1)),
        (#""\a""#, .invalidEscape(offset: 1)),
        (#""\U0041""#, .invalidEscape(offset: 1)),
        (#""\u12""#, .invalidEscape(offset: 1)),
        (#""\u12G4""#, .invalidEscape(offset: 1)),
        (#""ok\u-123""#, .invalidEscape(offset: 3)),
        (#""\ud800\u12""#, .invalidEscape(offset: 7)),
        // Unpaired surrogates.
        (#""\ud800""#, .unpairedSurrogate(offset: 1)),
        (#""\uDBFF""#, .unpairedSurrogate(offset: 1)),
        (#""\udc00""#, .unpairedSurrogate(offset: 1)),
        (#""x\ude00\ud83d""#, .unpairedSurrogate(offset: 2)),
        (#""\ud800\u0041""#, .unpairedSurrogate(offset: 1)),
        (#""\ud800\ud800""#, .unpairedSurrogate(offset: 1)),
        (#""\ud800\n""#, .unpairedSurrogate(offset: 1)),
        (#""\ud800x""#, .unpairedSurrogate(offset: 1)),
        // Trailing data.
        ("{} x", .trailingData(offset: 3)),
        ("1 2", .trailingData(offset: 2)),
        ("[]]", .trailingData(offset: 2)),
        ("{}{}", .trailingData(offset: 2)),
        (#""a""b""#, .trailingData(offset: 3)),
        ("null,", .trailingData(offset: 4)),
    ])
    func rejectsInvalidJSONText(input: String, expected: JSONParseError) {
        #expect(parseError(Array(input.utf8)) == expected)
    }

    @Test(arguments: [
        ([0x22, 0xC0, 0x80, 0x22], 1),                  // overlong NUL
        ([0x22, 0xC1, 0xBF, 0x22], 1),                  // overlong 2-byte
        ([0x22, 0xE0, 0x80, 0xAF, 0x22], 1),            // overlong 3-byte
        ([0x22, 0xF0, 0x80, 0x80, 0xAF, 0x22], 1),      // overlong 4-byte
        ([0x22, 0xED, 0xA0, 0x80, 0x22], 1),            // encoded high surrogate
        ([0x22, 0xED, 0xBF, 0xBF, 0x22], 1),            // encoded low surrogate
        ([0x22, 0xE2, 0x82], 1),                        // truncated at end of input
        ([0x22, 0xE2, 0x82, 0x22], 1),                  // truncated before the closing quote
        ([0x22, 0xF0, 0x9F, 0x98, 0x22], 1),            // truncated 4-byte
        ([0x22, 0x80, 0x22], 1),                        // stray continuation byte
        ([0x22, 0x61, 0xBF, 0x22], 2),                  // stray continuation byte after ASCII
        ([0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], 1),      // above U+10FFFF
        ([0x22, 0xF5, 0x80, 0x80, 0x80, 0x22], 1),      // F5 lead byte
        ([0x22, 0xF8, 0x88, 0x80, 0x80, 0x80, 0x22], 1), // 5-byte form
        ([0x22, 0xFE, 0x22], 1),
        ([0xFF], 0),
        ([0x22, 0xC3, 0x28, 0x22], 1),                  // lead byte followed by ASCII
        ([0x78, 0xFF], 1),                              // checked before the unexpected 'x'
        ([0x5B, 0xC3, 0x5D], 1),                        // outside a string too
        (Array("\"0123456789abcdefghijklmnopqrstu".utf8) + [0x80, 0x22], 32), // after the ASCII fast path
        (Array("\"0123456789abcdef".utf8) + [0xE2, 0x82, 0xAC, 0xE2, 0x82, 0x22], 20),
    ] as [([UInt8], Int)])
    func rejectsInvalidUTF8WithTheOffsetOfTheBadSequence(input: [UInt8], offset: Int) {
        #expect(parseError(input) == .invalidUTF8(offset: offset))
    }

    // MARK: Depth

    @Test func hundredThousandOpenBracketsAreTooDeepNotACrash() {
        let input = [UInt8](repeating: ascii("["), count: 100_000)
        #expect(parseError(input) == .tooDeep(limit: 64))
    }

    @Test func hundredThousandNestedObjectsAreTooDeepNotACrash() {
        let input = Array(String(repeating: #"{"a":"#, count: 100_000).utf8)
        #expect(parseError(input) == .tooDeep(limit: 64))
    }

    @Test func deepNestingWithAHugeLimitStillCannotOverflowTheStack() {
        let input = [UInt8](repeating: ascii("["), count: 100_000) + [ascii("1")]
        #expect(parseError(input, maxDepth: 1_000_000) == .unexpectedEnd)
    }

    @Test(arguments: [1, 2, 63, 64])
    func nestingUpToTheLimitIsAccepted(depth: Int) throws {
        let text = String(repeating: "[", count: depth) + "0" + String(repeating: "]", count: depth)
        var value = try parse(text)
        for _ in 0..<depth {
            let elements = try #require(value.arrayValue)
            try #require(elements.count == 1)
            value = elements[0]
        }
        #expect(value == number("0"))
    }

    @Test func oneLevelPastTheLimitIsTooDeep() {
        let text = String(repeating: "[", count: 65) + String(repeating: "]", count: 65)
        #expect(parseError(Array(text.utf8)) == .tooDeep(limit: 64))
        let mixed = String(repeating: #"[{"k":"#, count: 33) + "1" + String(repeating: "}]", count: 33)
        #expect(parseError(Array(mixed.utf8)) == .tooDeep(limit: 64))
    }

    @Test func emptyContainersCountTowardsDepth() {
        #expect(parseError(Array("[[]]".utf8), maxDepth: 1) == .tooDeep(limit: 1))
        #expect(parseError(Array("[{}]".utf8), maxDepth: 1) == .tooDeep(limit: 1))
        #expect(parseError(Array("[]".utf8), maxDepth: 1) == nil)
    }

    @Test func maxDepthZeroAllowsOnlyScalars() throws {
        #expect(try parse("42", maxDepth: 0) == number("42"))
        #expect(parseError(Array("[]".utf8), maxDepth: 0) == .tooDeep(limit: 0))
        #expect(parseError(Array("{}".utf8), maxDepth: 0) == .tooDeep(limit: 0))
    }

    // MARK: Input types

    @Test func offsetsAreRelativeToTheStartOfASlice() {
        let bytes = Array("xx[1,]".utf8)
        #expect(throws: JSONParseError.unexpectedByte(ascii("]"), offset: 3)) {
            try JSONParser.parse(bytes[2...])
        }
    }

    @Test func parsesNonContiguousCollections() throws {
        let bytes = Array(#"{"a":[1,"b"]}"#.utf8).lazy.map { $0 }
        let expected: JSONValue = ["a": [1, "b"]]
        #expect(try JSONParser.parse(bytes) == expected)
    }

    @Test func parsesUnsafeBufferPointersAndUTF8Views() throws {
        let text = #"[true,{"x":null}]"#
        let expected: JSONValue = [true, ["x": .null]]
        #expect(try JSONParser.parse(text.utf8) == expected)
        let fromBuffer = Array(text.utf8).withUnsafeBufferPointer { buffer in
            Result { () throws(JSONParseError) in try JSONParser.parse(buffer) }
        }
        #expect(try fromBuffer.get() == expected)
    }

    @Test func parsesATypicalRequestLine() throws {
        let line = #"{"jsonrpc":"2.0","id":9007199254740993,"method":"add","params":{"title":"Dune \u2014 Frank Herbert","tags":["sf"]}}"#
        let object = try #require(try parse(line).objectValue)
        #expect(object["jsonrpc"] == "2.0")
        #expect(object["id"]?.numberValue?.int64 == 9_007_199_254_740_993)
        #expect(object["method"]?.stringValue == "add")
        #expect(object["params"]?.objectValue?["title"]?.stringValue == "Dune — Frank Herbert")
        #expect(object["params"]?.objectValue?["tags"] == ["sf"])
    }

    // MARK: Error descriptions

    @Test(arguments: [
        (JSONParseError.unexpectedByte(ascii("}"), offset: 14), "unexpected character '}' at byte 14"),
        (.unexpectedByte(0x0C, offset: 0), "unexpected byte 0x0C at byte 0"),
        (.unexpectedByte(0xC2, offset: 3), "unexpected byte 0xC2 at byte 3"),
        (.unexpectedEnd, "unexpected end of input"),
        (.invalidUTF8(offset: 5), "invalid UTF-8 at byte 5"),
        (.invalidNumber(offset: 2), "invalid number at byte 2"),
        (.invalidEscape(offset: 7), "invalid escape sequence in string at byte 7"),
        (.controlCharacterInString(offset: 1), "unescaped control character in string at byte 1"),
        (.unpairedSurrogate(offset: 4), "unpaired UTF-16 surrogate escape in string at byte 4"),
        (.tooDeep(limit: 64), "arrays and objects nested more than 64 levels deep"),
        (.trailingData(offset: 3), "unexpected data after the JSON value at byte 3"),
    ])
    func errorDescriptionsAreShortSentences(error: JSONParseError, expected: String) {
        #expect(error.description == expected)
        #expect(!error.description.contains("\n"))
    }
}
