/// Why ``JSONParser`` rejected a JSON text.
///
/// Every offset is the 0-based byte offset from the start of the parsed input (for the server, the start of
/// the request line). ``description`` is a short sentence meant for a person typing requests into netcat,
/// e.g. `unexpected character '}' at byte 14`.
public enum JSONParseError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The input is not well-formed UTF-8 (Unicode §3.9, table 3-7: overlong forms, encoded surrogates,
    /// code points above U+10FFFF, stray continuation bytes and truncated sequences are all rejected).
    /// `offset` is the first byte of the ill-formed sequence.
    case invalidUTF8(offset: Int)
    /// The input ended in the middle of a value (including empty or whitespace-only input).
    case unexpectedEnd
    /// A byte that cannot start or continue the current construct, at `offset`.
    case unexpectedByte(UInt8, offset: Int)
    /// A number that breaks the RFC 8259 §6 grammar (leading zero, missing digits after `-`, `.`, or `e`);
    /// `offset` is the first byte of the number.
    case invalidNumber(offset: Int)
    /// A backslash escape other than `\" \\ \/ \b \f \n \r \t \uXXXX` (RFC 8259 §7); `offset` is the backslash.
    case invalidEscape(offset: Int)
    /// A raw U+0000–U+001F inside a string, which RFC 8259 §7 requires to be escaped; `offset` is that byte.
    case controlCharacterInString(offset: Int)
    /// A `\uD800`–`\uDFFF` escape that is not part of a high+low surrogate pair (RFC 8259 §7, §8.2);
    /// `offset` is the backslash of the offending escape.
    case unpairedSurrogate(offset: Int)
    /// Arrays and objects are nested more than `limit` levels deep.
    case tooDeep(limit: Int)
    /// A complete value was followed by something other than whitespace, starting at `offset`.
    case trailingData(offset: Int)

    /// A one-line, human-readable explanation, e.g. `unexpected character '}' at byte 14`.
    public var description: String {
        switch self {
        case .invalidUTF8(let offset):
            return "invalid UTF-8 at byte \(offset)"
        case .unexpectedEnd:
            return "unexpected end of input"
        case .unexpectedByte(let byte, let offset):
            return "unexpected \(Self.describe(byte)) at byte \(offset)"
        case .invalidNumber(let offset):
            return "invalid number at byte \(offset)"
        case .invalidEscape(let offset):
            return "invalid escape sequence in string at byte \(offset)"
        case .controlCharacterInString(let offset):
            return "unescaped control character in string at byte \(offset)"
        case .unpairedSurrogate(let offset):
            return "unpaired UTF-16 surrogate escape in string at byte \(offset)"
        case .tooDeep(let limit):
            return "arrays and objects nested more than \(limit) levels deep"
        case .trailingData(let offset):
            return "unexpected data after the JSON value at byte \(offset)"
        }
    }

    /// `character 'x'` for printable ASCII, `byte 0x0A` otherwise.
    private static func describe(_ byte: UInt8) -> String {
        if byte >= 0x21 && byte <= 0x7E {
            return "character '\(Character(Unicode.Scalar(byte)))'"
        }
        let hex = String(byte, radix: 16, uppercase: true)
        return "byte 0x\(hex.count == 1 ? "0" + hex : hex)"
    }
}
