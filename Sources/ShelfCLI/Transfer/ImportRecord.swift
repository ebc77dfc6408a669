import Foundation
import ShelfCore

/// One row of a file to import: where it is, and the item it describes or why it cannot be one.
struct ImportRecord: Equatable {
    /// The line of the file the row starts on (1-based).
    var line: Int
    var outcome: Result<ImportCandidate, Problem>

    init(line: Int, _ outcome: Result<ImportCandidate, Problem>) {
        self.line = line
        self.outcome = outcome
    }

    /// Why a row was refused, in words for the user.
    struct Problem: Error, Equatable, ExpressibleByStringInterpolation, CustomStringConvertible {
        var reason: String
        init(_ reason: String) { self.reason = reason }
        init(stringLiteral value: String) { reason = value }
        init(stringInterpolation: DefaultStringInterpolation) { reason = String(stringInterpolation: stringInterpolation) }
        var description: String { reason }
    }
}

/// An item to add, already checked against the rules the server applies (`Title`, `ItemField`), so a bad row is
/// reported with its line before anything is sent.
struct ImportCandidate: Equatable {
    /// The stored title.
    var title: String
    /// The stored author, URL, tags and note, and what the row keeps of another list (id, dates, read state).
    var details: ItemDetails

    /// A candidate from raw text, or the first rule it breaks.
    static func checked(title raw: String, details: ItemDetails) -> Result<ImportCandidate, ImportRecord.Problem> {
        let title: String
        switch Title.validate(raw) {
        case .success(let valid): title = valid
        case .failure(let problem): return .failure(ImportRecord.Problem(problem.description))
        }
        var checked = details
        do {
            checked.author = try ItemField.validateAuthor(details.author ?? "").get()
            checked.url = try ItemField.validateURL(details.url ?? "").get()
            checked.tags = try ItemField.validateTags(details.tags).get()
            checked.note = try ItemField.validateNote(details.note ?? "").get()
        } catch {
            return .failure(ImportRecord.Problem(error.description))
        }
        return .success(ImportCandidate(title: title, details: checked))
    }

    /// What makes two items the same for an import: the title and the author, compared ignoring case and runs of
    /// whitespace.
    var key: String { Self.key(title: title, author: details.author) }

    /// The key of an item with this title and author.
    static func key(title: String, author: String?) -> String {
        fold(title) + "\u{0}" + fold(author ?? "")
    }

    private static func fold(_ text: String) -> String {
        text.lowercased().split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
    }
}

/// A whole file refused before anything is sent: unreadable, binary, not in the format asked for.
struct ImportFailure: Error, Equatable, CustomStringConvertible {
    var message: String
    init(_ message: String) { self.message = message }
    var description: String { message }
}
