import Foundation

/// The rules for an item's optional members (protocol/PROTOCOL.md §9): author, URL, tags and note. Like `Title`,
/// each takes raw user text and returns the stored form or the first rule it breaks. An author, URL or note that is
/// blank once trimmed is none (`nil`): emptying a field clears it.
public enum ItemField {
    /// The longest author, in characters (grapheme clusters) after trimming.
    public static let maxAuthorLength = 500
    /// The longest author in UTF-8 bytes (500 characters of any script fit).
    public static let maxAuthorBytes = 16_384
    /// The longest URL, in UTF-8 bytes (which for a valid URL are ASCII characters).
    public static let maxURLBytes = 2_048
    /// The most tags an item carries.
    public static let maxTags = 32
    /// The longest tag, in characters.
    public static let maxTagLength = 64
    /// The longest tag in UTF-8 bytes (64 characters of any script fit): a character may be a letter with any
    /// number of combining marks, so counting characters alone let one "character" of 400 KB through.
    public static let maxTagBytes = 256
    /// The most UTF-8 bytes of a refused tag an error message repeats.
    static let quotedTagBytes = 64
    /// The longest note, in characters after trimming.
    public static let maxNoteLength = 10_000
    /// The longest note in UTF-8 bytes.
    public static let maxNoteBytes = 65_536

    /// Why a member was refused; the descriptions are the messages users see. `field` names the member, and each
    /// member has its own wire reason (`invalid_author`, `invalid_url`, `invalid_tags`, `invalid_note`).
    public enum Problem: Error, Sendable, Equatable, CustomStringConvertible {
        case authorTooLong(length: Int)
        case authorTooManyBytes(count: Int)
        case authorControlCharacter(scalar: UInt32)
        case urlTooLong(bytes: Int)
        case urlNotAbsolute
        case urlScheme(String)
        case urlNoHost
        case urlCharacter(scalar: UInt32, offset: Int)
        case urlPercentEscape(offset: Int)
        case tooManyTags(count: Int)
        case tagEmpty
        /// `tag` is the start of the tag, at most `quotedTagBytes` of it (see `excerpt`), in this case and the next two.
        case tagTooLong(tag: String, length: Int)
        case tagTooManyBytes(tag: String, count: Int)
        case tagCharacter(tag: String, scalar: UInt32)
        case noteTooLong(length: Int)
        case noteTooManyBytes(count: Int)
        case noteControlCharacter(scalar: UInt32)

        /// Whether it is `tooManyTags`.
        public var isTooManyTags: Bool {
            if case .tooManyTags = self { return true }
            return false
        }

        /// The member the problem is with: `author`, `url`, `tags` or `note`.
        public var field: String {
            switch self {
            case .authorTooLong, .authorTooManyBytes, .authorControlCharacter: "author"
            case .urlTooLong, .urlNotAbsolute, .urlScheme, .urlNoHost, .urlCharacter, .urlPercentEscape: "url"
            case .tooManyTags, .tagEmpty, .tagTooLong, .tagTooManyBytes, .tagCharacter: "tags"
            case .noteTooLong, .noteTooManyBytes, .noteControlCharacter: "note"
            }
        }

        public var description: String {
            switch self {
            case .authorTooLong(let length):
                "Author is too long: \(length) characters, the limit is \(ItemField.maxAuthorLength)"
            case .authorTooManyBytes(let count):
                "Author is too long: \(count) bytes of UTF-8, the limit is \(ItemField.maxAuthorBytes)"
            case .authorControlCharacter(let scalar):
                "Author contains a control character (U+\(hex(scalar))); remove it and try again"
            case .urlTooLong(let bytes):
                "URL is too long: \(bytes) bytes, the limit is \(ItemField.maxURLBytes)"
            case .urlNotAbsolute:
                "URL must be absolute and start with http:// or https://"
            case .urlScheme(let scheme):
                "URL must start with http:// or https://, not \(scheme):"
            case .urlNoHost:
                "URL has no host after the scheme's //"
            case .urlCharacter(let scalar, let offset):
                "URL contains U+\(hex(scalar)) at character \(offset + 1), which must be percent-encoded (RFC 3986)"
            case .urlPercentEscape(let offset):
                "URL has a % at character \(offset + 1) not followed by two hex digits (RFC 3986)"
            case .tooManyTags(let count):
                "Too many tags: \(count), the limit is \(ItemField.maxTags)"
            case .tagEmpty:
                "A tag is empty"
            case .tagTooLong(let tag, let length):
                "Tag \"\(tag)\" is too long: \(length) characters, the limit is \(ItemField.maxTagLength)"
            case .tagTooManyBytes(let tag, let count):
                "Tag \"\(tag)\" is too long: \(count) bytes of UTF-8, the limit is \(ItemField.maxTagBytes)"
            case .tagCharacter(let tag, let scalar):
                "Tag \"\(tag)\" contains U+\(hex(scalar)); tags hold no whitespace, control characters or commas"
            case .noteTooLong(let length):
                "Note is too long: \(length) characters, the limit is \(ItemField.maxNoteLength)"
            case .noteTooManyBytes(let count):
                "Note is too long: \(count) bytes of UTF-8, the limit is \(ItemField.maxNoteBytes)"
            case .noteControlCharacter(let scalar):
                "Note contains a control character (U+\(hex(scalar))); only newlines and tabs are allowed"
            }
        }

        private func hex(_ value: UInt32) -> String {
            let digits = String(value, radix: 16, uppercase: true)
            return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
        }
    }

    /// The stored author: trimmed; `nil` when blank.
    public static func validateAuthor(_ raw: String) -> Result<String?, Problem> {
        let trimmed = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.isEmpty { return .success(nil) }
        if let bad = trimmed.unicodeScalars.first(where: { Title.isControl($0) }) {
            return .failure(.authorControlCharacter(scalar: bad.value))
        }
        let bytes = trimmed.utf8.count
        if bytes > maxAuthorLength {
            let length = trimmed.count
            if length > maxAuthorLength { return .failure(.authorTooLong(length: length)) }
            if bytes > maxAuthorBytes { return .failure(.authorTooManyBytes(count: bytes)) }
        }
        return .success(trimmed)
    }

    /// The stored URL: trimmed, and otherwise exactly as given; `nil` when blank. It must be an absolute URL
    /// (RFC 3986 §4.3) with the scheme `http` or `https` (any letter case), a non-empty host, only characters
    /// RFC 3986 §2 allows (others percent-encoded), and whole `%XX` escapes.
    public static func validateURL(_ raw: String) -> Result<String?, Problem> {
        let trimmed = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.isEmpty { return .success(nil) }
        let bytes = Array(trimmed.utf8)
        if bytes.count > maxURLBytes { return .failure(.urlTooLong(bytes: bytes.count)) }
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon > 0,
              bytes[..<colon].allSatisfy(isSchemeByte), isLetter(bytes[0])
        else { return .failure(.urlNotAbsolute) }
        let scheme = String(decoding: bytes[..<colon], as: UTF8.self).lowercased()
        guard scheme == "http" || scheme == "https" else { return .failure(.urlScheme(String(decoding: bytes[..<colon], as: UTF8.self))) }
        for (offset, scalar) in trimmed.unicodeScalars.enumerated() where !isURLScalar(scalar) {
            return .failure(.urlCharacter(scalar: scalar.value, offset: offset))
        }
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%") {
                guard index + 2 < bytes.count, isHexDigit(bytes[index + 1]), isHexDigit(bytes[index + 2]) else {
                    return .failure(.urlPercentEscape(offset: index))
                }
                index += 3
            } else {
                index += 1
            }
        }
        let rest = bytes[(colon + 1)...]
        guard rest.starts(with: [UInt8(ascii: "/"), UInt8(ascii: "/")]) else { return .failure(.urlNoHost) }
        let authority = rest.dropFirst(2).prefix { $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: "?") && $0 != UInt8(ascii: "#") }
        let hostAndPort = authority.lastIndex(of: UInt8(ascii: "@")).map { authority[($0 + 1)...] } ?? authority
        let host: ArraySlice<UInt8>
        if hostAndPort.first == UInt8(ascii: "[") {
            host = hostAndPort.prefix { $0 != UInt8(ascii: "]") }.dropFirst()
        } else {
            host = hostAndPort.prefix { $0 != UInt8(ascii: ":") }
        }
        if host.isEmpty { return .failure(.urlNoHost) }
        return .success(trimmed)
    }

    /// The stored tags: each trimmed and folded to lowercase (Unicode's lowercase mapping), duplicates dropped,
    /// sorted by UTF-8 bytes; 0 to `maxTags` of them, each 1 to `maxTagLength` characters and at most
    /// `maxTagBytes` bytes of UTF-8, with no whitespace, control character or comma.
    /// - Parameter checkingBytes: whether the `maxTagBytes` rule applies: for tags given now, not for tags already
    ///   stored, which were accepted before the rule existed and are not corrupt.
    public static func validateTags(_ raw: [String], checkingBytes: Bool = true) -> Result<[String], Problem> {
        validateTagNames(raw, checkingBytes: checkingBytes).flatMap { folded in
            folded.count > maxTags ? .failure(.tooManyTags(count: folded.count)) : .success(sorted(folded))
        }
    }

    /// Each tag's stored form (`validateTag`), duplicates dropped, with no limit on how many: for tags to remove,
    /// and tags to add before they are merged with the item's.
    public static func validateTagNames(_ raw: [String], checkingBytes: Bool = true) -> Result<Set<String>, Problem> {
        var folded = Set<String>()
        for tag in raw {
            switch validateTag(tag, checkingBytes: checkingBytes) {
            case .success(let tag): folded.insert(tag)
            case .failure(let problem): return .failure(problem)
            }
        }
        return .success(folded)
    }

    /// One tag's stored form (see `validateTags`).
    public static func validateTag(_ raw: String, checkingBytes: Bool = true) -> Result<String, Problem> {
        let trimmed = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.isEmpty { return .failure(.tagEmpty) }
        if let bad = trimmed.unicodeScalars.first(where: { $0.properties.isWhitespace || Title.isControl($0) || $0 == "," || $0.value == 0x85 }) {
            return .failure(.tagCharacter(tag: excerpt(trimmed), scalar: bad.value))
        }
        // A tag can have no more characters than UTF-8 bytes, so short ones need no counting.
        let bytes = trimmed.utf8.count
        if bytes > maxTagLength {
            let length = trimmed.count
            if length > maxTagLength { return .failure(.tagTooLong(tag: excerpt(trimmed), length: length)) }
            if checkingBytes, bytes > maxTagBytes { return .failure(.tagTooManyBytes(tag: excerpt(trimmed), count: bytes)) }
        }
        return .success(trimmed.lowercased())
    }

    /// The start of `tag` for an error message: whole scalars up to `quotedTagBytes` bytes of UTF-8, then `…` if
    /// anything was left out. Cut by bytes, not characters: one character may hold hundreds of kilobytes.
    static func excerpt(_ tag: String) -> String {
        guard tag.utf8.count > quotedTagBytes else { return tag }
        var scalars = String.UnicodeScalarView()
        var bytes = 0
        for scalar in tag.unicodeScalars {
            bytes += UTF8.width(scalar)
            if bytes > quotedTagBytes { break }
            scalars.append(scalar)
        }
        return String(scalars) + "…"
    }

    /// Tags in their stored order: by UTF-8 bytes, which is the same on every machine and in every locale.
    public static func sorted<S: Sequence<String>>(_ tags: S) -> [String] {
        tags.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    /// The stored note: line ends made LF (CRLF and lone CR both), trimmed; `nil` when blank. Newlines and tabs
    /// are allowed, other control characters are not.
    public static func validateNote(_ raw: String) -> Result<String?, Problem> {
        var text = raw
        if text.utf8.contains(0x0D) {
            text = text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
        }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.isEmpty { return .success(nil) }
        if let bad = trimmed.unicodeScalars.first(where: { Title.isControl($0) && $0 != "\n" && $0 != "\t" }) {
            return .failure(.noteControlCharacter(scalar: bad.value))
        }
        let bytes = trimmed.utf8.count
        if bytes > maxNoteLength {
            let length = trimmed.count
            if length > maxNoteLength { return .failure(.noteTooLong(length: length)) }
            if bytes > maxNoteBytes { return .failure(.noteTooManyBytes(count: bytes)) }
        }
        return .success(trimmed)
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte)
    }

    /// RFC 3986 §3.1: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ).
    private static func isSchemeByte(_ byte: UInt8) -> Bool {
        isLetter(byte) || (0x30...0x39).contains(byte) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-")
            || byte == UInt8(ascii: ".")
    }

    /// RFC 3986 §2: unreserved, reserved (gen-delims and sub-delims), and `%` for escapes.
    private static func isURLScalar(_ scalar: Unicode.Scalar) -> Bool {
        guard scalar.isASCII else { return false }
        let byte = UInt8(scalar.value)
        if isLetter(byte) || (0x30...0x39).contains(byte) { return true }
        return Array("-._~:/?#[]@!$&'()*+,;=%".utf8).contains(byte)
    }
}
