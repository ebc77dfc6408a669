import Foundation
import ShelfCore

/// The small decisions about item text that `shelf` makes before it sends a change: which items an `add` repeats,
/// and what an edited note amounts to.
enum ItemMatching {
    /// `text` compared as a person would: letter case and runs of whitespace ignored (`" Dune  MESSIAH"` is
    /// `"dune messiah"`).
    static func key(_ text: String) -> String {
        text.lowercased().split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
    }

    /// The items of `items` that an item titled `title` (by `author`, when given) repeats: the same title, and
    /// the same author when one is given, by `key`.
    static func duplicates(title: String, author: String?, in items: [Item]) -> [Item] {
        let title = key(title)
        let author = author.map(key).flatMap { $0.isEmpty ? nil : $0 }
        return items.filter { item in
            key(item.title) == title && (author == nil || key(item.author ?? "") == author)
        }
    }

    /// The word of `title` to ask the server's search for (the longest): every item whose title has the same
    /// `key` contains it, so the search finds them all and the comparison is made here.
    static func searchWord(_ title: String) -> String? {
        let words: [Substring] = title.split(whereSeparator: { $0.isWhitespace })
        return words.max { $0.count < $1.count }.map { String($0) }
    }

    /// What an edited note amounts to.
    enum NoteOutcome: Equatable {
        /// The same note as before (as the server would store it: trimmed, CRLF made LF).
        case unchanged
        /// Nothing but whitespace: nothing is changed (`edit --no-note` removes a note).
        case empty
        /// A new note.
        case changed(String)
    }

    /// What the editor's `edited` text means for an item whose note was `old`.
    static func note(old: String?, edited: String) -> NoteOutcome {
        let text = edited.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
            .trimmingCharacters(in: .whitespacesAndNewlines)
        if text.isEmpty { return .empty }
        return text == old ? .unchanged : .changed(text)
    }
}
