import ShelfCore
import ShelfJSON

/// The formats `shelf export` writes (README, "Import and export").
public enum ExportFormat: String, CaseIterable, Equatable, Sendable {
    /// One item per line, exactly the wire's Item (protocol/PROTOCOL.md §4), every member: what `shelf import`
    /// reads back without loss.
    case jsonl
    /// Shelf's CSV (`ShelfCSV`): RFC 4180, a header row, one column per member.
    case csv
    /// A Markdown checklist, `- [x] Title — Author`, for pasting into notes.
    case markdown

    /// What comes before the items (the CSV header), else empty.
    var header: String {
        self == .csv ? ShelfCSV.header : ""
    }

    /// One item as written, its line end included.
    func entry(_ item: Item) -> String {
        switch self {
        case .jsonl:
            var bytes: [UInt8] = []
            item.appendJSON(to: &bytes)
            bytes.append(0x0A)
            return String(decoding: bytes, as: UTF8.self)
        case .csv:
            return ShelfCSV.row(item)
        case .markdown:
            return "- [\(item.isRead ? "x" : " ")] \(Self.markdownText(item.title))"
                + (item.author.map { " — \(Self.markdownText($0))" } ?? "") + "\n"
        }
    }

    /// Text that Markdown shows as written: its punctuation that could start emphasis, strike-through, links, code or HTML
    /// backslash-escaped (CommonMark §2.4 lets any ASCII punctuation be escaped).
    static func markdownText(_ text: String) -> String {
        var escaped = ""
        for character in text {
            if "\\`*_[]<>~".contains(character) { escaped.append("\\") }
            escaped.append(character)
        }
        return escaped
    }
}
