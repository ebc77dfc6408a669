import Foundation
import ShelfCore

/// `--format text`: one title per line; blank lines and whitespace around a title ignored.
enum TextLines {
    static func records(_ text: String) -> [ImportRecord] {
        numbered(text).map { line, content in
            ImportRecord(line: line, ImportCandidate.checked(title: String(content), details: ItemDetails()))
        }
    }

    /// The lines of `text` that are not blank, trimmed, with their numbers (1-based); LF or CRLF end a line.
    static func numbered(_ text: String) -> [(line: Int, text: Substring)] {
        var lines: [(line: Int, text: Substring)] = []
        var number = 0
        for line in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            number += 1
            let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
            if !trimmed.isEmpty { lines.append((number, Substring(trimmed))) }
        }
        return lines
    }
}
