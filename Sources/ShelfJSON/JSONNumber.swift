/// A JSON number kept as its exact source text (RFC 8259 §6 grammar), e.g. `"18446744073709551616"`, `"-0"`,
/// `"1e400"`.
///
/// Keeping the text means a number is echoed back byte for byte (JSON-RPC ids of any size survive), and no
/// precision is lost until a caller asks for a concrete type. Equality and hashing compare the text, so
/// `1`, `1.0` and `1e0` are three different values.
public struct JSONNumber: Sendable, Hashable, CustomStringConvertible {
    /// The number exactly as written: ASCII, matching `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    public let text: String

    /// Wraps `text` if it is a JSON number (RFC 8259 §6): no leading `+`, no leading zeros, no `.5` or `1.`,
    /// no `NaN`/`Infinity`, no surrounding whitespace.
    /// - Returns: `nil` when `text` is not exactly one JSON number.
    public init?(text: String) {
        var copy = text
        let valid = copy.withUTF8 { bytes in
            Self.scanEnd(in: bytes, from: 0) == bytes.count && !bytes.isEmpty
        }
        guard valid else { return nil }
        self.text = text
    }

    /// The decimal representation of `value`, e.g. `-42`.
    public init(_ value: Int) {
        self.text = String(value)
    }

    /// The decimal representation of `value`, e.g. `18446744073709551615`.
    public init(_ value: UInt64) {
        self.text = String(value)
    }

    /// Wraps text the caller has already matched against the grammar (the package's own scanners: `JSONParser`,
    /// and the fast request paths in ShelfWire, which match the integer subset byte by byte).
    package init(uncheckedText text: String) {
        self.text = text
    }

    /// The value as an `Int64` if the text is an integer (no fraction, no exponent) in
    /// `Int64.min...Int64.max`; `"1.0"`, `"1e2"` and `"9223372036854775808"` give `nil`. `"-0"` gives 0.
    public var int64: Int64? {
        isInteger ? Int64(text) : nil
    }

    /// The value as a `UInt64` if the text is an integer (no fraction, no exponent) in `0...UInt64.max`;
    /// negative numbers other than `"-0"` give `nil`.
    public var uint64: UInt64? {
        isInteger ? UInt64(text) : nil
    }

    /// The nearest `Double`, or `nil` if the magnitude is too large to be finite (e.g. `"1e400"`).
    /// Values too small to represent round to zero (`"1e-400"` gives 0.0).
    public var double: Double? {
        guard let value = Double(text), value.isFinite else { return nil }
        return value
    }

    /// The source text.
    public var description: String { text }

    /// True when the text has neither a fraction nor an exponent.
    private var isInteger: Bool {
        !text.utf8.contains { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }
    }

    /// Matches the longest RFC 8259 §6 number starting at `start`.
    ///
    /// - Returns: the index just past the number, or `nil` if the bytes at `start` do not form a number
    ///   (a lone `-`, a leading zero followed by a digit, a `.` or exponent without digits).
    static func scanEnd(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        let end = bytes.count
        var i = start
        if i < end && bytes[i] == UInt8(ascii: "-") { i += 1 }
        guard i < end else { return nil }
        if bytes[i] == UInt8(ascii: "0") {
            i += 1
            if i < end && isDigit(bytes[i]) { return nil }
        } else if isDigit(bytes[i]) {
            i += 1
            while i < end && isDigit(bytes[i]) { i += 1 }
        } else {
            return nil
        }
        if i < end && bytes[i] == UInt8(ascii: ".") {
            i += 1
            guard i < end && isDigit(bytes[i]) else { return nil }
            i += 1
            while i < end && isDigit(bytes[i]) { i += 1 }
        }
        if i < end && (bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E")) {
            i += 1
            if i < end && (bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-")) { i += 1 }
            guard i < end && isDigit(bytes[i]) else { return nil }
            i += 1
            while i < end && isDigit(bytes[i]) { i += 1 }
        }
        return i
    }

    @inline(__always)
    private static func isDigit(_ byte: UInt8) -> Bool {
        byte &- UInt8(ascii: "0") < 10
    }
}
