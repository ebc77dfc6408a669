import Foundation
import ShelfCore

/// Goodreads' "Export Library" file (`goodreads_library_export.csv`): RFC 4180 CSV whose header names the columns
/// (24 in recent exports, 31 in older ones, in an order that has changed), so columns are found by name.
///
/// Kept: `Title` (as it is, a series in parentheses included: `Dune (Dune, #1)`), `Author` (runs of spaces made
/// one), `Exclusive Shelf` (`read` is read; `to-read`, `currently-reading` and any other are unread, and any but
/// `read` and `to-read` is also a tag), `Date Read` (`readAt`) and `Date Added` (`addedAt`) as `YYYY/MM/DD`, taken
/// as midnight UTC, `Bookshelves` (comma-separated, as tags, spaces in a name made `-`), `Private Notes` (the note,
/// its HTML made text). Dropped: every other column (Book Id, Additional Authors, ISBN, ISBN13, My Rating, Average
/// Rating, Publisher, Binding, Number of Pages, Year Published, Original Publication Year, My Review, Spoiler,
/// Read Count, Owned Copies, and the older exports' extra columns).
enum GoodreadsCSV {
    /// Whether `header` is a Goodreads export's: it names `Title`, `Author` and `Exclusive Shelf`.
    static func isHeader(_ header: [String]) -> Bool {
        let names = Set(header.map { $0.trimmingCharacters(in: .whitespaces) })
        return names.isSuperset(of: ["Title", "Author", "Exclusive Shelf"])
    }

    /// The records after the header row.
    /// - Throws: `ImportFailure` when the header lacks `Title`, `Author` or `Exclusive Shelf`.
    static func records(_ rows: [CSVTable.Record]) throws(ImportFailure) -> [ImportRecord] {
        guard let header = rows.first else { return [] }
        guard isHeader(header.fields) else {
            throw ImportFailure("line \(header.line): not a Goodreads export's header (no Title, Author and Exclusive Shelf columns)")
        }
        var column: [String: Int] = [:]
        for (index, name) in header.fields.enumerated() {
            column[name.trimmingCharacters(in: .whitespaces)] = column[name] ?? index
        }
        return rows.dropFirst().map { row in
            let cell = { (name: String) -> String in
                guard let index = column[name], index < row.fields.count else { return "" }
                return unguarded(row.fields[index]).trimmingCharacters(in: .whitespacesAndNewlines)
            }
            return ImportRecord(line: row.line, record(cell))
        }
    }

    private static func record(_ cell: (String) -> String) -> Result<ImportCandidate, ImportRecord.Problem> {
        var origin = ItemDetails.Origin()
        var tags: [String] = []
        let shelf = cell("Exclusive Shelf").lowercased()
        origin.isRead = shelf == "read"
        if !shelf.isEmpty, shelf != "read", shelf != "to-read" { tags.append(tagName(shelf)) }
        for name in cell("Bookshelves").split(separator: ",") {
            let tag = tagName(name.trimmingCharacters(in: .whitespaces).lowercased())
            if !tag.isEmpty, tag != "read", tag != "to-read" { tags.append(tag) }
        }
        for (name, path) in [("Date Added", \ItemDetails.Origin.addedAt), ("Date Read", \ItemDetails.Origin.readAt)] {
            let text = cell(name)
            if text.isEmpty { continue }
            guard let date = date(text) else { return .failure("\(name) \"\(text)\" is not a date YYYY/MM/DD") }
            origin[keyPath: path] = date
        }
        // A date read on a book since shelved again as unread: the shelf says what it is now.
        if origin.isRead == false { origin.readAt = nil }
        let author = cell("Author").split(whereSeparator: \.isWhitespace).joined(separator: " ")
        let note = HTMLText.plain(cell("Private Notes"))
        return ImportCandidate.checked(
            title: cell("Title"), details: ItemDetails(author: author, tags: tags, note: note, origin: origin))
    }

    /// A shelf name as a tag: whitespace inside made `-` (tags hold none).
    private static func tagName(_ shelf: String) -> String {
        shelf.split(whereSeparator: \.isWhitespace).joined(separator: "-")
    }

    /// A cell Goodreads wrote as a spreadsheet formula that yields text, `="0441172717"`, as that text.
    static func unguarded(_ cell: String) -> String {
        guard cell.hasPrefix("=\""), cell.hasSuffix("\""), cell.count >= 3 else { return cell }
        return String(cell.dropFirst(2).dropLast())
    }

    /// `YYYY/MM/DD` (months and days of one or two digits) as midnight UTC of that day; `nil` for anything else or
    /// a day the calendar does not have.
    static func date(_ text: String) -> Date? {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, (1...2).contains(parts[1].count), (1...2).contains(parts[2].count),
              parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
              let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2])
        else { return nil }
        let stamp = String(format: "%04d-%02d-%02dT00:00:00.000Z", year, month, day)
        guard let date = Timestamp.parse(stamp) else { return nil }
        return date
    }
}

/// Goodreads' notes and reviews are HTML fragments: line breaks as `<br/>`, characters as entities (`&amp;`).
enum HTMLText {
    /// `html` as plain text: `<br>` (any spelling) is a line break, a paragraph's `<p>` and `</p>` one too unless at a line's start, other tags dropped, entities decoded
    /// (the five XML ones, `&nbsp;`, and numeric `&#NNN;` / `&#xHH;`); an `&` that starts no known entity stays.
    static func plain(_ html: String) -> String {
        var text = ""
        var rest = html[...]
        while let first = rest.first {
            if first == "<", let close = rest.firstIndex(of: ">") {
                let inside = rest[rest.index(after: rest.startIndex)..<close].lowercased()
                let tag = inside.split(whereSeparator: { $0.isWhitespace }).first.map(String.init) ?? ""
                if tag == "br" || tag == "br/" {
                    text.append("\n")
                } else if tag == "p" || tag == "/p" {
                    // A paragraph's edges: one line break between paragraphs, none doubled.
                    if let last = text.last, last != "\n" { text.append("\n") }
                }
                rest = rest[rest.index(after: close)...]
            } else if first == "&", let semicolon = rest.prefix(12).firstIndex(of: ";"),
                      let decoded = entity(rest[rest.index(after: rest.startIndex)..<semicolon]) {
                text.append(decoded)
                rest = rest[rest.index(after: semicolon)...]
            } else {
                text.append(first)
                rest = rest.dropFirst()
            }
        }
        return text
    }

    private static func entity(_ name: Substring) -> Character? {
        switch name {
        case "amp": return "&"
        case "lt": return "<"
        case "gt": return ">"
        case "quot": return "\""
        case "apos": return "'"
        case "nbsp": return " "
        default: break
        }
        guard name.first == "#" else { return nil }
        let digits = name.dropFirst()
        let value = digits.first == "x" || digits.first == "X" ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits, radix: 10)
        // Only characters a note may hold: no C0 control but tab and newline.
        guard let value, let scalar = Unicode.Scalar(value), value >= 0x20 || value == 0x09 || value == 0x0A else { return nil }
        return Character(scalar)
    }
}
