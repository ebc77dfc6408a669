import Foundation
import ShelfCommandLine
import ShelfCore

/// Resolves what a user typed as an ID: a full UUID, or a unique prefix of at least `minimumLength` hex digits of
/// an item's id as `shelf list` shows it (hyphens ignored, any letter case).
enum IDPrefix {
    static let minimumLength = 4

    enum Failure: Error, Equatable, CustomStringConvertible {
        case malformed(String)
        case noMatch(String)
        case noItem(String)
        case ambiguous(String, candidates: [String])

        var description: String {
            switch self {
            case .malformed(let text):
                "\"\(TerminalText.visible(text))\" is not an id: give a full id or at least \(IDPrefix.minimumLength) hex digits of one"
            case .noMatch(let text):
                "no item has an id starting with \(text)"
            case .noItem(let text):
                "no item has the id \(text)"
            case .ambiguous(let text, let candidates):
                "id \(text) is ambiguous; it matches:\n" + candidates.map { "  \($0)" }.joined(separator: "\n")
            }
        }
    }

    /// The full UUID if `text` is one, without a round trip to the server.
    static func fullID(_ text: String) -> UUID? { UUID(uuidString: text) }

    /// The digits of `text` (hyphens dropped, lowercased) when it can be a prefix.
    static func digits(_ text: String) throws(Failure) -> String {
        let digits = text.lowercased().filter { $0 != "-" }
        guard digits.count >= minimumLength, digits.count <= 32, digits.allSatisfy({ $0.isASCII && $0.isHexDigit }) else {
            throw .malformed(text)
        }
        return digits
    }

    /// The one item of `items` whose id starts with `text`.
    static func resolve(_ text: String, in items: [Item]) throws(Failure) -> Item {
        let prefix = try digits(text)
        let matches = items.filter { $0.id.uuidString.lowercased().filter { $0 != "-" }.hasPrefix(prefix) }
        switch matches.count {
        case 0: throw .noMatch(text)
        case 1: return matches[0]
        default: throw .ambiguous(text, candidates: matches.map(ItemRow.text))
        }
    }
}
