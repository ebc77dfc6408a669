// String parsing (RFC 8259 §7): a fast path for strings without escapes, a scratch buffer for the rest.

extension JSONParser {
    /// Parses a string whose opening quote is at `index`, leaving `index` just past the closing quote.
    ///
    /// The input was validated as UTF-8 up front, so only quotes, backslashes and control bytes need a look.
    mutating func parseString() throws(JSONParseError) -> String {
        let start = index + 1
        var i = StringByteScan.skipPlainWords(in: bytes, from: start)
        while i < bytes.count {
            let byte = bytes[i]
            if byte == UInt8(ascii: "\"") {
                index = i + 1
                return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<i]), as: UTF8.self)
            }
            if byte == UInt8(ascii: "\\") {
                return try parseEscapedString(start: start, firstEscape: i)
            }
            if byte < 0x20 {
                throw .controlCharacterInString(offset: i)
            }
            i += 1
        }
        throw .unexpectedEnd
    }

    /// Finishes a string that contains at least one escape, decoding into `scratch`.
    private mutating func parseEscapedString(start: Int, firstEscape: Int) throws(JSONParseError) -> String {
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<firstEscape]))
        var i = firstEscape
        var runStart = firstEscape
        while i < bytes.count {
            let byte = bytes[i]
            if byte == UInt8(ascii: "\"") {
                scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<i]))
                index = i + 1
                return String(decoding: scratch, as: UTF8.self)
            }
            if byte == UInt8(ascii: "\\") {
                scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<i]))
                i = try decodeEscape(at: i)
                runStart = i
                i = StringByteScan.skipPlainWords(in: bytes, from: i)
                continue
            }
            if byte < 0x20 {
                throw .controlCharacterInString(offset: i)
            }
            i += 1
        }
        throw .unexpectedEnd
    }

    /// Decodes the escape whose backslash is at `backslash` into `scratch`.
    /// - Returns: the index just past the escape.
    private mutating func decodeEscape(at backslash: Int) throws(JSONParseError) -> Int {
        let i = backslash + 1
        guard i < bytes.count else { throw .unexpectedEnd }
        let simple: UInt8
        switch bytes[i] {
        case UInt8(ascii: "\""): simple = UInt8(ascii: "\"")
        case UInt8(ascii: "\\"): simple = UInt8(ascii: "\\")
        case UInt8(ascii: "/"): simple = UInt8(ascii: "/")
        case UInt8(ascii: "b"): simple = 0x08
        case UInt8(ascii: "f"): simple = 0x0C
        case UInt8(ascii: "n"): simple = 0x0A
        case UInt8(ascii: "r"): simple = 0x0D
        case UInt8(ascii: "t"): simple = 0x09
        case UInt8(ascii: "u"):
            return try decodeUnicodeEscape(at: backslash)
        default:
            throw .invalidEscape(offset: backslash)
        }
        scratch.append(simple)
        return i + 1
    }

    /// Decodes `\uXXXX` (combining a high+low surrogate pair) at `backslash` into `scratch`.
    /// - Returns: the index just past the escape (or pair).
    private mutating func decodeUnicodeEscape(at backslash: Int) throws(JSONParseError) -> Int {
        let unit = try readHex4(escapeAt: backslash)
        var next = backslash + 6
        let scalarValue: UInt32
        switch unit {
        case 0xD800...0xDBFF:
            guard next + 1 < bytes.count,
                  bytes[next] == UInt8(ascii: "\\"), bytes[next + 1] == UInt8(ascii: "u") else {
                if next >= bytes.count { throw .unexpectedEnd }
                throw .unpairedSurrogate(offset: backslash)
            }
            let low = try readHex4(escapeAt: next)
            guard (0xDC00...0xDFFF).contains(low) else { throw .unpairedSurrogate(offset: backslash) }
            scalarValue = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
            next += 6
        case 0xDC00...0xDFFF:
            throw .unpairedSurrogate(offset: backslash)
        default:
            scalarValue = UInt32(unit)
        }
        appendUTF8(scalarValue)
        return next
    }

    /// Reads the four hex digits of the `\u` escape at `backslash`.
    private func readHex4(escapeAt backslash: Int) throws(JSONParseError) -> UInt16 {
        var unit: UInt16 = 0
        for i in (backslash + 2)..<(backslash + 6) {
            guard i < bytes.count else { throw .unexpectedEnd }
            let byte = bytes[i]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw .invalidEscape(offset: backslash)
            }
            unit = unit << 4 | UInt16(digit)
        }
        return unit
    }

    /// Appends the UTF-8 encoding of a scalar value (never a surrogate) to `scratch`.
    private mutating func appendUTF8(_ value: UInt32) {
        switch value {
        case 0..<0x80:
            scratch.append(UInt8(value))
        case 0x80..<0x800:
            scratch.append(0xC0 | UInt8(value >> 6))
            scratch.append(0x80 | UInt8(value & 0x3F))
        case 0x800..<0x10000:
            scratch.append(0xE0 | UInt8(value >> 12))
            scratch.append(0x80 | UInt8((value >> 6) & 0x3F))
            scratch.append(0x80 | UInt8(value & 0x3F))
        default:
            scratch.append(0xF0 | UInt8(value >> 18))
            scratch.append(0x80 | UInt8((value >> 12) & 0x3F))
            scratch.append(0x80 | UInt8((value >> 6) & 0x3F))
            scratch.append(0x80 | UInt8(value & 0x3F))
        }
    }
}
