import Testing
import ShelfJSON

struct JSONNumberTests {
    @Test(arguments: ["0", "-0", "1", "-1", "10", "1.5", "-0.25", "1e5", "1E+5", "1e-5", "0e0", "-0.0E-0",
                      "18446744073709551616", "123456789012345678901234567890.5e-999"])
    func acceptsTextInTheGrammar(text: String) throws {
        let number = try #require(JSONNumber(text: text))
        #expect(number.text == text)
        #expect(number.description == text)
    }

    @Test(arguments: ["", " 1", "1 ", "+1", "01", "-01", "00", ".5", "1.", "1.e2", "1e", "1e+", "--1", "-",
                      "NaN", "Infinity", "-Infinity", "0x10", "1_000", "１", "1.5.2", "1e5e5"])
    func rejectsTextOutsideTheGrammar(text: String) {
        #expect(JSONNumber(text: text) == nil)
    }

    @Test(arguments: [
        ("0", Int64(0) as Int64?),
        ("-0", 0),
        ("42", 42),
        ("-42", -42),
        ("9007199254740993", 9_007_199_254_740_993),
        ("9223372036854775807", .max),
        ("-9223372036854775808", .min),
        ("9223372036854775808", nil),
        ("-9223372036854775809", nil),
        ("1.0", nil),
        ("1e2", nil),
        ("1E0", nil),
    ])
    func int64IsExactOrNil(text: String, expected: Int64?) throws {
        #expect(try #require(JSONNumber(text: text)).int64 == expected)
    }

    @Test(arguments: [
        ("0", UInt64(0) as UInt64?),
        ("-0", 0),
        ("18446744073709551615", .max),
        ("18446744073709551616", nil),
        ("-1", nil),
        ("2.0", nil),
        ("2e0", nil),
    ])
    func uint64IsExactOrNil(text: String, expected: UInt64?) throws {
        #expect(try #require(JSONNumber(text: text)).uint64 == expected)
    }

    @Test(arguments: [
        ("0", 0.0 as Double?),
        ("-1.5", -1.5),
        ("1e2", 100),
        ("1E-2", 0.01),
        ("9007199254740993", 9_007_199_254_740_992),
        ("1e400", nil),
        ("-1e400", nil),
        ("1e-400", 0),
    ])
    func doubleIsNearestFiniteValueOrNil(text: String, expected: Double?) throws {
        #expect(try #require(JSONNumber(text: text)).double == expected)
    }

    @Test func integerInitializersWriteDecimalText() {
        #expect(JSONNumber(-42).text == "-42")
        #expect(JSONNumber(Int.min).text == "-9223372036854775808")
        #expect(JSONNumber(UInt64.max).text == "18446744073709551615")
        #expect(JSONNumber(UInt64.max).uint64 == .max)
    }

    @Test func equalityComparesTheText() {
        #expect(JSONNumber(text: "1") == JSONNumber(1))
        #expect(JSONNumber(text: "1.0") != JSONNumber(1))
        #expect(JSONNumber(text: "-0") != JSONNumber(0))
    }
}
