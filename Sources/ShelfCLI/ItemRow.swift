import ShelfCommandLine
import ShelfCore
import ShelfWire

/// How `shelf` prints an item: `3fa2b1c4 [x] Dune — Frank Herbert #classic #scifi` — the 8-digit short id, the read
/// mark, the title, then the author and the tags when it has them, all made safe.
enum ItemRow {
    static func shortID(_ item: Item) -> String {
        String(item.id.uuidString.lowercased().prefix(8))
    }

    static func text(_ item: Item) -> String {
        var row = "\(shortID(item)) \(item.isRead ? "[x]" : "[ ]") \(TerminalText.visible(item.title))"
        if let author = item.author { row += " — " + TerminalText.visible(author) }
        for tag in item.tags { row += " #" + TerminalText.visible(tag) }
        return row
    }

    /// A row of `list`, cut to `width` columns by display width (`DisplayWidth`); whole with no width.
    static func text(_ item: Item, width: Int?) -> String {
        let row = text(item)
        guard let width else { return row }
        return DisplayWidth.truncate(row, to: width)
    }

    /// What `show` prints: one `name  value` line per member the item has, the text made safe (a note's lines
    /// each on a line of their own, indented), then the list's revision — the one `--expect` compares, which any
    /// change to any item moves; the item's own (`changed at revision`) is the one `--expect-item` compares.
    static func details(_ item: Item, listRevision: Revision) -> [String] {
        var lines = [
            "id       \(item.id.wireString)",
            "title    \(TerminalText.visible(item.title))",
        ]
        if let author = item.author { lines.append("author   \(TerminalText.visible(author))") }
        if let url = item.url { lines.append("url      \(TerminalText.visible(url))") }
        if !item.tags.isEmpty { lines.append("tags     \(item.tags.map(TerminalText.visible).joined(separator: " "))") }
        lines.append("read     \(item.isRead ? "yes" : "no")")
        if let readAt = item.readAt { lines.append("read at  \(Timestamp.format(readAt))") }
        lines.append("added    \(Timestamp.format(item.addedAt))")
        if let note = item.note {
            let noteLines = note.split(separator: "\n", omittingEmptySubsequences: false).map { TerminalText.visible(String($0)) }
            lines.append("note     " + noteLines.joined(separator: "\n         "))
        }
        lines.append("changed  at revision \(item.revision)")
        lines.append("list     at revision \(listRevision)")
        return lines
    }

    /// The line under `list`: `3 items, 1 read (revision 7)`; with `--read` or `--unread`, which ones were shown:
    /// `2 unread items (revision 7)`; with a query or tags, `2 items match, 1 read (revision 7)`. When `--limit`
    /// held some back, `; more not shown (--limit N)` follows.
    static func summary(_ items: [Item], revision: Revision, query: ItemQuery = .all, more: Bool = false) -> String {
        let noun = items.count == 1 ? "item" : "items"
        let searched = query.text != nil || !query.tags.isEmpty
        let match = searched ? (items.count == 1 ? " matches" : " match") : ""
        var line: String
        if query.filter != .all {
            line = "\(items.count) \(query.filter == .read ? "read" : "unread") \(noun)\(match) (revision \(revision))"
        } else {
            line = "\(items.count) \(noun)\(match), \(items.filter(\.isRead).count) read (revision \(revision))"
        }
        if more, let limit = query.limit { line += "; more not shown (--limit \(limit))" }
        return line
    }
}
