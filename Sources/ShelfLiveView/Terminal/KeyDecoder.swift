/// Turns the bytes a terminal sends in raw mode into keys: UTF-8 text, control keys, the escape sequences of the
/// arrows, PgUp/PgDn, Home/End, Delete and Shift-Tab (CSI and SS3 forms, modifiers ignored), and bracketed paste
/// (`ESC [200~` … `ESC [201~`, one `Key.paste`). A sequence split across reads is completed by the next push; an
/// Esc on its own is told apart from the start of a sequence by the caller's timeout (`flush()`).
public struct KeyDecoder: Sendable {
    private var pending: [UInt8] = []
    /// The text of a paste under way, until its end marker.
    private var paste: [UInt8]?

    private static let pasteEnd: [UInt8] = Array("\u{1b}[201~".utf8)

    /// A decoder holding nothing.
    public init() {}

    /// Whether bytes are held waiting for more (an Esc, or part of a sequence or a character): the caller then
    /// waits a little for the rest and calls `flush()` if none comes.
    public var isWaiting: Bool { !pending.isEmpty || paste != nil }

    /// The keys `bytes` complete.
    public mutating func push(_ bytes: some Sequence<UInt8>) -> [Key] {
        pending.append(contentsOf: bytes)
        return decode(final: false)
    }

    /// Nothing more came: what is held is taken as it stands (a lone Esc is the Esc key; a paste without its end
    /// is pasted; a broken character becomes U+FFFD).
    public mutating func flush() -> [Key] {
        decode(final: true)
    }

    private mutating func decode(final: Bool) -> [Key] {
        var keys: [Key] = []
        var index = 0
        while index < pending.count {
            if paste != nil {
                guard let end = Self.find(Self.pasteEnd, in: pending, from: index) else {
                    if final {
                        paste?.append(contentsOf: pending[index...])
                        index = pending.count
                        keys.append(.paste(String(decoding: paste ?? [], as: UTF8.self)))
                        paste = nil
                    } else {
                        // Keep what could be the start of the end marker; the rest belongs to the paste.
                        let keep = min(Self.pasteEnd.count - 1, pending.count - index)
                        paste?.append(contentsOf: pending[index..<(pending.count - keep)])
                        index = pending.count - keep
                        pending.removeFirst(index)
                        return keys
                    }
                    break
                }
                paste?.append(contentsOf: pending[index..<end])
                keys.append(.paste(String(decoding: paste ?? [], as: UTF8.self)))
                paste = nil
                index = end + Self.pasteEnd.count
                continue
            }
            switch Self.key(in: pending, at: index, final: final) {
            case .key(let key, let length):
                if let key { keys.append(key) }
                index += length
            case .pasteStart(let length):
                paste = []
                index += length
            case .incomplete:
                pending.removeFirst(index)
                return keys
            }
        }
        pending.removeAll(keepingCapacity: true)
        return keys
    }

    private enum Step {
        /// A key (or `nil`: bytes to skip) taking `length` bytes.
        case key(Key?, length: Int)
        case pasteStart(length: Int)
        /// More bytes are needed.
        case incomplete
    }

    private static func key(in bytes: [UInt8], at start: Int, final: Bool) -> Step {
        let byte = bytes[start]
        switch byte {
        case 0x1B:
            guard start + 1 < bytes.count else { return final ? .key(.escape, length: 1) : .incomplete }
            let next = bytes[start + 1]
            if next == UInt8(ascii: "[") { return csi(bytes, start, final: final) }
            if next == UInt8(ascii: "O") {
                guard start + 2 < bytes.count else { return final ? .key(.escape, length: 1) : .incomplete }
                return .key(letterKey(bytes[start + 2]), length: 3)
            }
            // Esc then another key (Alt-key, or Esc typed quickly before it): Esc, and the key on its own.
            return .key(.escape, length: 1)
        case 0x0D: return .key(.enter, length: 1)
        // Enter sends CR in raw mode; LF is Ctrl-J, which types a line break in a note.
        case 0x0A: return .key(.control("j"), length: 1)
        case 0x09: return .key(.tab, length: 1)
        case 0x7F, 0x08: return .key(.backspace, length: 1)
        case 0x01...0x1A: return .key(.control(Character(Unicode.Scalar(byte + 0x60))), length: 1)
        case 0x00, 0x1C...0x1F: return .key(nil, length: 1)
        case 0x20...0x7E: return .key(.character(Character(Unicode.Scalar(byte))), length: 1)
        default: return utf8(bytes, start, final: final)
        }
    }

    /// The key of a sequence's final letter, the same in its CSI (`ESC [ A`) and SS3 (`ESC O A`) forms.
    private static func letterKey(_ byte: UInt8) -> Key? {
        switch byte {
        case UInt8(ascii: "A"): .up
        case UInt8(ascii: "B"): .down
        case UInt8(ascii: "C"): .right
        case UInt8(ascii: "D"): .left
        case UInt8(ascii: "H"): .home
        case UInt8(ascii: "F"): .end
        default: nil
        }
    }

    /// `ESC [` parameters, then a final byte (0x40–0x7E).
    private static func csi(_ bytes: [UInt8], _ start: Int, final: Bool) -> Step {
        var index = start + 2
        while index < bytes.count, !(0x40...0x7E).contains(bytes[index]) {
            // A byte that cannot be in a sequence: the Esc was a key of its own.
            if bytes[index] < 0x20 { return .key(.escape, length: 1) }
            index += 1
        }
        guard index < bytes.count else { return final ? .key(.escape, length: 1) : .incomplete }
        let parameters = String(decoding: bytes[(start + 2)..<index], as: UTF8.self)
        let first = parameters.split(separator: ";").first.map(String.init) ?? ""
        let length = index - start + 1
        let key: Key? = switch bytes[index] {
        case UInt8(ascii: "Z"): .backTab
        case UInt8(ascii: "~"):
            switch first {
            case "1", "7": .home
            case "4", "8": .end
            case "3": .delete
            case "5": .pageUp
            case "6": .pageDown
            default: nil
            }
        default: letterKey(bytes[index])
        }
        if bytes[index] == UInt8(ascii: "~"), first == "200" { return .pasteStart(length: length) }
        return .key(key, length: length)
    }

    private static func utf8(_ bytes: [UInt8], _ start: Int, final: Bool) -> Step {
        let byte = bytes[start]
        let length = switch byte {
        case 0xC2...0xDF: 2
        case 0xE0...0xEF: 3
        case 0xF0...0xF4: 4
        default: 0
        }
        guard length > 0 else { return .key(.character("\u{FFFD}"), length: 1) }
        guard start + length <= bytes.count else {
            return final ? .key(.character("\u{FFFD}"), length: bytes.count - start) : .incomplete
        }
        let text = String(decoding: bytes[start..<(start + length)], as: UTF8.self)
        // A C1 control (U+0080–U+009F) is no key to type.
        guard let scalar = text.unicodeScalars.first, scalar.value >= 0xA0 else { return .key(nil, length: length) }
        return .key(.character(Character(scalar)), length: length)
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard haystack.count - start >= needle.count else { return nil }
        var index = start
        while index + needle.count <= haystack.count {
            if haystack[index] == needle[0], Array(haystack[index..<(index + needle.count)]) == needle { return index }
            index += 1
        }
        return nil
    }
}
