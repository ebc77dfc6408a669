import ShelfCommandLine
import ShelfCore

/// How `shelf` prints an item: `3fa2b1c4 [x] Dune` — the 8-digit short id, the read mark, the title made safe.
enum ItemRow {
    static func shortID(_ item: Item) -> String {
        String(item.id.uuidString.lowercased().prefix(8))
    }

    static func text(_ item: Item) -> String {
        "\(shortID(item)) \(item.isRead ? "[x]" : "[ ]") \(TerminalText.visible(item.title))"
    }

    /// What `show` prints: one `name  value` line per field, the title made safe.
    static func details(_ item: Item) -> [String] {
        [
            "id       \(item.id.wireString)",
            "title    \(TerminalText.visible(item.title))",
            "read     \(item.isRead ? "yes" : "no")",
            "added    \(Timestamp.format(item.addedAt))",
            "changed  at revision \(item.revision)",
        ]
    }

    /// The line under `list`: `3 items, 1 read (revision 7)`.
    static func summary(_ items: [Item], revision: Revision) -> String {
        let read = items.filter(\.isRead).count
        let noun = items.count == 1 ? "item" : "items"
        return "\(items.count) \(noun), \(read) read (revision \(revision))"
    }
}
