import Foundation
import ShelfJSON

/// The tokens of the narrow JSON subset the fast request paths read (`PlainRequestLine`, `PlainCallLine`): strings
/// of printable ASCII without escapes, integers without fraction or exponent, `true`, `false`, `null`, and spaces
/// (0x20 only) between tokens. Every method answers `nil` or `false` for anything outside the subset, leaving the
/// line to the general path (`JSONParser`), which decides it exactly (RFC 8259).
struct PlainLineScanner {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0

    init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// One request object, `{"jsonrpc":"2.0","id":…,"method":"…","params":…}`, members in any order, each at most
    /// once, `jsonrpc` optional, and only spaces after it; `readID` and `readParams` read those two values (`nil`:
    /// outside the subset).
    /// - Returns: the id (`nil` when absent), the method name's bytes and the params (`nil` when absent).
    mutating func requestObject<ID, Params>(
        id readID: (inout PlainLineScanner) -> ID?, params readParams: (inout PlainLineScanner) -> Params?
    ) -> (id: ID?, method: UnsafeBufferPointer<UInt8>, params: Params?)? {
        guard take(UInt8(ascii: "{")) else { return nil }
        var id: ID?
        var method: UnsafeBufferPointer<UInt8>?
        var params: Params?
        var sawVersion = false
        repeat {
            guard let key = stringBytes(), take(UInt8(ascii: ":")) else { return nil }
            if key.isExactly("jsonrpc") {
                guard !sawVersion, let version = stringBytes(), version.isExactly("2.0") else { return nil }
                sawVersion = true
            } else if key.isExactly("id") {
                guard id == nil, let parsed = readID(&self) else { return nil }
                id = parsed
            } else if key.isExactly("method") {
                guard method == nil, let name = stringBytes() else { return nil }
                method = name
            } else if key.isExactly("params") {
                guard params == nil, let read = readParams(&self) else { return nil }
                params = read
            } else {
                return nil
            }
        } while take(UInt8(ascii: ","))
        guard take(UInt8(ascii: "}")), let method, atEnd() else { return nil }
        return (id, method, params)
    }

    /// True when only spaces are left.
    mutating func atEnd() -> Bool {
        skipSpaces()
        return index == bytes.count
    }

    /// The bytes between the quotes of `"…"` of printable ASCII (0x20–0x7E) without `\`.
    mutating func stringBytes() -> UnsafeBufferPointer<UInt8>? {
        guard take(UInt8(ascii: "\"")), let base = bytes.baseAddress else { return nil }
        // Every request line goes through here several times: a plain loop on the pointer, no slices.
        let start = index
        var end = start
        while end < bytes.count {
            let byte = base[end]
            if byte == UInt8(ascii: "\"") {
                index = end + 1
                return UnsafeBufferPointer(start: base + start, count: end - start)
            }
            guard byte >= 0x20, byte < 0x7F, byte != UInt8(ascii: "\\") else { return nil }
            end += 1
        }
        return nil
    }

    /// `stringBytes()` as a `String`.
    mutating func string() -> String? {
        stringBytes().map { String(decoding: $0, as: UTF8.self) }
    }

    /// The text of `-?(0|[1-9][0-9]*)`, not followed by a fraction or exponent.
    mutating func integerBytes() -> UnsafeBufferPointer<UInt8>? {
        skipSpaces()
        let start = index
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        let digits = index
        while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
        guard index > digits, index - digits == 1 || bytes[digits] != UInt8(ascii: "0") else { return nil }
        if index < bytes.count, [UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E")].contains(bytes[index]) {
            return nil
        }
        return UnsafeBufferPointer(rebasing: bytes[start..<index])
    }

    /// `integerBytes()` as a `JSONNumber`.
    mutating func integer() -> JSONNumber? {
        integerBytes().map { JSONNumber(uncheckedText: String(decoding: $0, as: UTF8.self)) }
    }

    /// A string, an integer, `true`, `false` or `null`.
    mutating func scalar() -> JSONValue? {
        skipSpaces()
        guard index < bytes.count else { return nil }
        switch bytes[index] {
        case UInt8(ascii: "\""): return string().map(JSONValue.string)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return integer().map(JSONValue.number)
        case UInt8(ascii: "t"): return word("true") ? .bool(true) : nil
        case UInt8(ascii: "f"): return word("false") ? .bool(false) : nil
        case UInt8(ascii: "n"): return word("null") ? .null : nil
        default: return nil
        }
    }

    /// Consumes `literal` (after spaces) if it is next.
    mutating func word(_ literal: StaticString) -> Bool {
        skipSpaces()
        guard bytes.count - index >= literal.utf8CodeUnitCount,
              UnsafeBufferPointer(rebasing: bytes[index..<index + literal.utf8CodeUnitCount]).isExactly(literal)
        else { return false }
        index += literal.utf8CodeUnitCount
        return true
    }

    /// Skips spaces, then consumes `byte` if it is next.
    mutating func take(_ byte: UInt8) -> Bool {
        skipSpaces()
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    mutating func skipSpaces() {
        while index < bytes.count, bytes[index] == 0x20 { index += 1 }
    }
}

extension UnsafeBufferPointer<UInt8> {
    /// True when these bytes are exactly `literal`'s (a key or method name of the subset).
    func isExactly(_ literal: StaticString) -> Bool {
        guard count == literal.utf8CodeUnitCount else { return false }
        guard let baseAddress, count > 0 else { return count == 0 }
        return memcmp(baseAddress, literal.utf8Start, count) == 0
    }
}
