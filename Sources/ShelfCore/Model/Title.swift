import Foundation

/// The rules for an item title (issue #2, "The model"): trimmed of whitespace and newlines, not blank,
/// at most `maxLength` characters, and no control characters (U+0000–U+001F, U+007F) inside.
public enum Title {
    /// The longest title accepted, in characters (grapheme clusters) after trimming.
    public static let maxLength = 1_000
    /// The most UTF-8 bytes a new title may take after trimming: a thousand characters of any script, or of family
    /// emoji (25 bytes each), fit; one "character" of 400,000 combining marks (800 KB) does not (PROTOCOL.md §9).
    public static let maxBytes = 32_768

    /// Why a title was refused. The descriptions are the messages users see.
    public enum Problem: Error, Sendable, Equatable, CustomStringConvertible {
        /// Nothing is left after trimming.
        case blank
        /// More than `maxLength` characters after trimming.
        case tooLong(length: Int)
        /// More than `maxBytes` bytes of UTF-8 after trimming.
        case tooManyBytes(count: Int)
        /// A control character (U+0000–U+001F, U+007F) inside, with its scalar value.
        case controlCharacter(scalar: UInt32)

        public var description: String {
            switch self {
            case .blank:
                "Enter a title"
            case .tooLong(let length):
                "Title is too long: \(length) characters, the limit is \(Title.maxLength)"
            case .tooManyBytes(let count):
                "Title is too long: \(count) bytes of UTF-8, the limit is \(Title.maxBytes)"
            case .controlCharacter(let scalar):
                "Title contains a control character (U+\(hex(scalar))); remove it and try again"
            }
        }

        private func hex(_ value: UInt32) -> String {
            let digits = String(value, radix: 16, uppercase: true)
            return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
        }
    }

    /// Returns the trimmed title, or the first rule it breaks.
    /// - Parameter checkingBytes: whether the `maxBytes` rule applies: for titles given now (`add`, `rename`), not
    ///   for titles already stored, which were accepted before the rule existed and are not corrupt.
    public static func validate(_ raw: String, checkingBytes: Bool = true) -> Result<String, Problem> {
        // Most titles need no trimming; Foundation's trimming is the costly part of an `add`.
        let trimmed = needsTrimming(raw) ? raw.trimmingCharacters(in: .whitespacesAndNewlines) : raw
        if trimmed.isEmpty { return .failure(.blank) }
        // Every control character is ASCII, and in UTF-8 a byte below 0x80 is always an ASCII scalar. Scanned as
        // contiguous bytes: iterating the UTF-8 view one element at a time showed in the profile of every `add`.
        let isControlByte: (UInt8) -> Bool = { $0 < 0x20 || $0 == 0x7F }
        let bad = trimmed.utf8.withContiguousStorageIfAvailable { $0.first(where: isControlByte) }
            ?? trimmed.utf8.first(where: isControlByte)
        if let bad {
            return .failure(.controlCharacter(scalar: UInt32(bad)))
        }
        // A title can have no more characters than UTF-8 bytes, so short ones need no counting.
        let bytes = trimmed.utf8.count
        if bytes > maxLength {
            let length = trimmed.count
            if length > maxLength { return .failure(.tooLong(length: length)) }
            if checkingBytes, bytes > maxBytes { return .failure(.tooManyBytes(count: bytes)) }
        }
        return .success(trimmed)
    }

    private static func needsTrimming(_ raw: String) -> Bool {
        // Printable ASCII at both ends (the usual title) is never trimmed; only other ends need Unicode's tables.
        if let first = raw.utf8.first, let last = raw.utf8.last, (0x21...0x7E).contains(first), (0x21...0x7E).contains(last) {
            return false
        }
        let scalars = raw.unicodeScalars
        guard let first = scalars.first, let last = scalars.last else { return false }
        return first.properties.isWhitespace || last.properties.isWhitespace || isControl(first) || isControl(last)
            || first.value == 0x85 || last.value == 0x85
    }

    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || scalar.value == 0x7F
    }
}
