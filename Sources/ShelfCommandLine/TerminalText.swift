import ShelfJSON

/// Makes text safe to print on a terminal: control characters (C0, DEL, C1) and bidirectional-override
/// characters are shown as `\u{…}` escapes, so nothing a title holds can move the cursor, change colours or
/// reorder the line.
package enum TerminalText {
    /// `text` with each unsafe character written as `\u{hex}` (lower-case hex, no leading zeros), the rest as is.
    package static func visible(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            if isUnsafe(scalar) {
                result += "\\u{\(String(scalar.value, radix: 16))}"
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// Whether `visible(_:)` leaves `character` as it is.
    package static func isSafe(_ character: Character) -> Bool {
        !character.unicodeScalars.contains(where: isUnsafe)
    }

    /// `visible(_:)` for each line of `text`, keeping its line breaks (LF): for messages of several lines whose parts
    /// may come from a server (an error's message) or a file (a log line naming a title).
    package static func visibleLines(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { $0 != "\n" && isUnsafe($0) }) else { return text }
        return text.split(separator: "\n", omittingEmptySubsequences: false).map { visible(String($0)) }.joined(separator: "\n")
    }

    /// `value` as one line of JSON for `--json`, with the same characters escaped as `\uXXXX` (JSON's own
    /// escape, so a JSON reader gets the text unchanged): JSON requires escaping only U+0000–U+001F, which would
    /// leave DEL, C1 controls and bidi overrides raw on the terminal.
    package static func json(_ value: JSONValue) -> String {
        let encoded = String(decoding: JSONWriter.encode(value), as: UTF8.self)
        guard encoded.unicodeScalars.contains(where: isUnsafe) else { return encoded }
        var result = ""
        result.reserveCapacity(encoded.utf8.count + 16)
        for scalar in encoded.unicodeScalars {
            if isUnsafe(scalar) {
                // Every unsafe scalar is in the BMP, and outside strings JSONWriter writes only ASCII structure.
                let hex = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    private static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: true
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }
}
