import Foundation
import ShelfCore

/// Shelf's own CSV (`shelf export --format csv`, read back by `shelf import`): RFC 4180 (`CSVTable`), a header row,
/// then one row per item with one column per member of the wire's Item (protocol/PROTOCOL.md §4), in its order.
///
/// - `isRead` is `true` or `false`; `addedAt` and `readAt` are RFC 3339 UTC (`readAt` empty while unread); empty
///   `author`, `url` and `note` are none.
/// - `tags` are joined with single spaces: a tag holds no whitespace (`ItemField.validateTag`), so the space cannot
///   be part of one.
/// - A cell that a spreadsheet would take for a formula — one starting with `=`, `+`, `-`, `@`, a tab or CR
///   (OWASP's "CSV injection") — is written with a leading apostrophe, which spreadsheets show as text; a cell that
///   starts with an apostrophe gets one more, so reading drops exactly one from any cell that starts with an
///   apostrophe followed by one of those or another apostrophe, and gets the member back exactly.
enum ShelfCSV {
    /// The header: the Item's members, in wire order.
    static let columns = ["id", "title", "isRead", "addedAt", "revision", "author", "url", "tags", "note", "readAt"]

    /// The header row, CRLF included.
    static var header: String { CSVTable.line(columns) }

    /// `item` as a row, CRLF included.
    static func row(_ item: Item) -> String {
        CSVTable.line([
            item.id.wireString, item.title, item.isRead ? "true" : "false", Timestamp.format(item.addedAt),
            String(item.revision), item.author ?? "", item.url ?? "", item.tags.joined(separator: " "), item.note ?? "",
            item.readAt.map(Timestamp.format) ?? "",
        ].map(guarded))
    }

    /// The characters that make a spreadsheet read a cell as a formula, and the apostrophe that guards them.
    private static let triggers: Set<Character> = ["=", "+", "-", "@", "\t", "\r", "'"]

    /// `cell` as written: with a leading apostrophe when it starts with a trigger (or an apostrophe).
    static func guarded(_ cell: String) -> String {
        guard let first = cell.first, triggers.contains(first) else { return cell }
        return "'" + cell
    }

    /// `cell` as read: the guard's apostrophe dropped.
    static func unguarded(_ cell: String) -> String {
        guard cell.first == "'", cell.count > 1 else { return cell }
        let second = cell[cell.index(after: cell.startIndex)]
        return triggers.contains(second) ? String(cell.dropFirst()) : cell
    }

    /// Whether `header` is Shelf's: `title` and otherwise only Shelf's column names (any order, any subset), so a
    /// hand-made sheet with `title,author,tags` imports too.
    static func isHeader(_ header: [String]) -> Bool {
        header.contains("title") && header.allSatisfy(columns.contains) && Set(header).count == header.count
    }

    /// The records of a Shelf CSV file after its header row.
    /// - Throws: `ImportFailure` when the header is not Shelf's.
    static func records(_ rows: [CSVTable.Record]) throws(ImportFailure) -> [ImportRecord] {
        guard let header = rows.first else { return [] }
        let names = header.fields.map { $0.trimmingCharacters(in: .whitespaces) }
        guard isHeader(names) else {
            if GoodreadsCSV.isHeader(names) {
                throw ImportFailure("line \(header.line): this is a Goodreads export, not Shelf's CSV: use --format goodreads (or auto)")
            }
            let shown = names.joined(separator: ",")
            throw ImportFailure("line \(header.line): not Shelf's CSV header (a title column and only "
                + "\(columns.joined(separator: ", ")), each once), but \"\(shown.prefix(80))\(shown.count > 80 ? "…" : "")\"")
        }
        return rows.dropFirst().map { row in
            var cells: [String: String] = [:]
            for (index, name) in names.enumerated() where index < row.fields.count {
                cells[name] = unguarded(row.fields[index])
            }
            return ImportRecord(line: row.line, parse(cells, extraCells: row.fields.count > names.count))
        }
    }

    private static func parse(_ cells: [String: String], extraCells: Bool) -> Result<ImportCandidate, ImportRecord.Problem> {
        if extraCells { return .failure("more cells than the header has columns") }
        func text(_ name: String) -> String? { cells[name].flatMap { $0.isEmpty ? nil : $0 } }
        var origin = ItemDetails.Origin()
        if let id = text("id") {
            guard let parsed = UUID(wireText: id) else { return .failure("id \"\(id)\" is not a UUID") }
            origin.id = parsed
        }
        switch text("isRead") {
        case nil: break
        case "true"?: origin.isRead = true
        case "false"?: origin.isRead = false
        case let other?: return .failure("isRead is \"\(other)\", not true or false")
        }
        for (name, path) in [("addedAt", \ItemDetails.Origin.addedAt), ("readAt", \ItemDetails.Origin.readAt)] {
            guard let value = text(name) else { continue }
            guard let date = Timestamp.parse(value) else { return .failure("\(name) \"\(value)\" is not an RFC 3339 time") }
            origin[keyPath: path] = date
        }
        if origin.isRead == false, origin.readAt != nil { return .failure("readAt is set but isRead is false") }
        let tags = (cells["tags"] ?? "").split(whereSeparator: { $0 == " " }).map(String.init)
        let details = ItemDetails(author: text("author"), url: text("url"), tags: tags, note: text("note"), origin: origin)
        return ImportCandidate.checked(title: cells["title"] ?? "", details: details)
    }
}
