/// Writes ``JSONValue``s as compact JSON (RFC 8259), appending UTF-8 bytes to a buffer.
///
/// The output never contains a raw LF or CR (control characters in strings are escaped and no whitespace
/// is emitted), so any value fits on one line of the line-delimited protocol.
public enum JSONWriter {
    /// Appends `value` as compact JSON.
    ///
    /// Strings are escaped as ``appendString(_:to:)`` describes; numbers are written as their raw text;
    /// object members are written in order, duplicates included.
    /// - Parameters:
    ///   - value: the value; recursion depth equals its nesting depth.
    ///   - out: the buffer to append to.
    public static func append(_ value: JSONValue, to out: inout [UInt8]) {
        switch value {
        case .null:
            appendRaw("null", to: &out)
        case .bool(let flag):
            appendRaw(flag ? "true" : "false", to: &out)
        case .number(let number):
            out.append(contentsOf: number.text.utf8)
        case .string(let string):
            appendString(string, to: &out)
        case .array(let elements):
            out.append(UInt8(ascii: "["))
            for (position, element) in elements.enumerated() {
                if position > 0 { out.append(UInt8(ascii: ",")) }
                append(element, to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let object):
            out.append(UInt8(ascii: "{"))
            for (position, member) in object.members.enumerated() {
                if position > 0 { out.append(UInt8(ascii: ",")) }
                appendString(member.key, to: &out)
                out.append(UInt8(ascii: ":"))
                append(member.value, to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// Appends `s` as a quoted JSON string, for hand-rolled fast encoders.
    ///
    /// Escaped per RFC 8259 §7: `"` and `\` get a backslash; U+0000–U+001F use the short forms `\b \f \n \r \t`
    /// where they exist and `\u00XX` (lowercase hex) otherwise. Everything else, including `/`, DEL and
    /// non-ASCII, is copied as UTF-8.
    /// - Parameters:
    ///   - s: the string.
    ///   - out: the buffer to append to.
    public static func appendString(_ s: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        let done: Void? = s.utf8.withContiguousStorageIfAvailable { appendEscaped($0, to: &out) }
        if done == nil {
            Array(s.utf8).withUnsafeBufferPointer { appendEscaped($0, to: &out) }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// How many bytes `appendString(s, to:)` appends, quotes included, without writing them: one per UTF-8 byte,
    /// two for each short escape, six for each `\u00XX` (for size estimates that must match the encoding).
    public static func encodedLength(of s: String) -> Int {
        s.utf8.withContiguousStorageIfAvailable(escapedLength) ?? Array(s.utf8).withUnsafeBufferPointer(escapedLength)
    }

    private static func escapedLength(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var length = bytes.count + 2
        var i = 0
        while true {
            i = StringByteScan.skipPlainWords(in: bytes, from: i)
            guard i < bytes.count else { return length }
            let byte = bytes[i]
            if StringByteScan.needsEscape(byte) {
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), 0x08, 0x0C, 0x0A, 0x0D, 0x09: length += 1
                default: length += 5
                }
            }
            i += 1
        }
    }

    /// How many decimal digits `appendInteger(value, to:)` writes.
    public static func decimalLength(of value: UInt64) -> Int {
        var digits = 1
        var rest = value
        while rest >= 10 {
            rest /= 10
            digits += 1
        }
        return digits
    }

    /// Returns `value` as compact JSON; see ``append(_:to:)``.
    public static func encode(_ value: JSONValue) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(128)
        append(value, to: &out)
        return out
    }

    /// Appends the escaped bytes of a string body, copying unescaped runs in bulk.
    private static func appendEscaped(_ bytes: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        var runStart = 0
        var i = 0
        while true {
            i = StringByteScan.skipPlainWords(in: bytes, from: i)
            guard i < bytes.count else { break }
            let byte = bytes[i]
            guard StringByteScan.needsEscape(byte) else {
                i += 1
                continue
            }
            if runStart < i {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<i]))
            }
            i += 1
            runStart = i
            out.append(UInt8(ascii: "\\"))
            switch byte {
            case UInt8(ascii: "\""): out.append(UInt8(ascii: "\""))
            case UInt8(ascii: "\\"): out.append(UInt8(ascii: "\\"))
            case 0x08: out.append(UInt8(ascii: "b"))
            case 0x0C: out.append(UInt8(ascii: "f"))
            case 0x0A: out.append(UInt8(ascii: "n"))
            case 0x0D: out.append(UInt8(ascii: "r"))
            case 0x09: out.append(UInt8(ascii: "t"))
            default:
                out.append(UInt8(ascii: "u"))
                out.append(UInt8(ascii: "0"))
                out.append(UInt8(ascii: "0"))
                out.append(hexDigit(byte >> 4))
                out.append(hexDigit(byte & 0x0F))
            }
        }
        if runStart < bytes.count {
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart...]))
        }
    }

    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }

    /// Appends `text` as it is: a fixed piece of JSON (`{"revision":`), copied in one go — appending a literal's
    /// `.utf8` view goes through the generic sequence path, which showed in the profile of every reply.
    public static func appendRaw(_ text: StaticString, to out: inout [UInt8]) {
        out.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Appends `value` in decimal (a JSON number), without building a String: written by `JSONByteCursor` into a
    /// stack buffer, then appended at once.
    public static func appendInteger(_ value: UInt64, to out: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            guard let start = digits.baseAddress else { return }
            var cursor = JSONByteCursor(start)
            cursor.putInteger(value)
            out.append(contentsOf: UnsafeBufferPointer(start: start, count: cursor.position - start))
        }
    }

    /// True when `bytes` may go between quotes as they are: no `"`, no `\` and no U+0000–U+001F (RFC 8259 §7), so
    /// `appendString` would copy them unchanged (for the package's encoders that write in one piece).
    package static func isPlainString(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = StringByteScan.skipPlainWords(in: bytes, from: 0)
        while index < bytes.count {
            if StringByteScan.needsEscape(bytes[index]) { return false }
            index += 1
        }
        return true
    }
}
