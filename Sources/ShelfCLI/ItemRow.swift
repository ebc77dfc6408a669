import ShelfCommandLine
import ShelfCore
import ShelfWire

/// How `shelf` prints an item: `3fa2b1c4 [x] Dune` — the 8-digit short id, the read mark, the title made safe.
enum ItemRow {
    static func shortID(_ item: Item) -> String {
        String(item.id.uuidString.lowercased().prefix(8))
    }

    static func text(_ item: Item) -> String {
        "\(shortID(item)) \(item.isRead ? "[x]" : "[ ]") \(TerminalText.visible(item.title))"
    }

    /// What `show` prints: one `name  value` line per field, the title made safe, then the list's revision — the
    /// one `--expect` compares, which any change to any item moves (the item's own is when it last changed).
    static func details(_ item: Item, listRevision: Revision) -> [String] {
        [
            "id       \(item.id.wireString)",
            "title    \(TerminalText.visible(item.title))",
            "read     \(item.isRead ? "yes" : "no")",
            "added    \(Timestamp.format(item.addedAt))",
            "changed  at revision \(item.revision)",
            "list     at revision \(listRevision)",
        ]
    }

    /// The line under `list`: `3 items, 1 read (revision 7)`; with `--read` or `--unread`, which ones were shown:
    /// `2 unread items (revision 7)`.
    static func summary(_ items: [Item], revision: Revision, filter: ListFilter = .all) -> String {
        if filter != .all {
            return "\(items.count) \(filter == .read ? "read" : "unread") \(items.count == 1 ? "item" : "items") (revision \(revision))"
        }
        let read = items.filter(\.isRead).count
        let noun = items.count == 1 ? "item" : "items"
        return "\(items.count) \(noun), \(read) read (revision \(revision))"
    }
}
