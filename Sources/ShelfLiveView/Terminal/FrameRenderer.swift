import Foundation
import ShelfCommandLine
import ShelfCore

/// Draws a `ListViewModel` as a `Frame` of a given size: a header, the visible rows only, the status line (the
/// revision and the connection), the input line or the last message. Text is made safe (`TerminalText.visible`)
/// and cut by display width; it never decides anything.
public struct FrameRenderer: Sendable {
    /// What the header names (the server's address).
    public var title: String

    /// A renderer whose header names `title`.
    public init(title: String) {
        self.title = title
    }

    /// The smallest size drawn; a smaller terminal gets a one-line note.
    public static let minimumSize = (width: 20, height: 5)

    /// Rows the list gets on a screen `height` rows tall, outside the edit form: the header, the status line and
    /// the bottom line take three.
    public static func listRows(height: Int) -> Int { max(1, height - 3) }

    /// The frame for `model` on a `width` x `height` screen.
    public func frame(_ model: ListViewModel, width: Int, height: Int) -> Frame {
        guard width >= Self.minimumSize.width, height >= Self.minimumSize.height else {
            var rows = Array(repeating: Frame.Row(String(repeating: " ", count: max(0, width))), count: max(0, height))
            if !rows.isEmpty { rows[0] = Frame.Row(DisplayWidth.fit("terminal too small", to: width)) }
            return Frame(width: width, height: height, rows: rows)
        }
        var rows: [Frame.Row] = [Frame.Row(DisplayWidth.fit(header(model), to: width), .bar)]
        var bottom: [Frame.Row] = []
        var cursor: (row: Int, column: Int)?
        if case .input(let line) = model.mode {
            for (index, field) in line.fields.enumerated() {
                let label = line.fields.count > 1 ? "\(field.label): " : Self.prompt(line.purpose)
                let labelWidth = DisplayWidth.of(label)
                let (shown, column) = Self.window(field, room: width - labelWidth)
                bottom.append(Frame.Row(DisplayWidth.fit(label + shown, to: width), index == line.focus ? .normal : .dim))
                if index == line.focus { cursor = (index, labelWidth + column) }
            }
        }
        let message = model.message.map { Frame.Row(DisplayWidth.fit(TerminalText.visible($0.text), to: width), $0.isError ? .error : .normal) }
        if bottom.isEmpty || line(model)?.fields.count ?? 0 > 1 {
            bottom.append(message ?? Frame.Row(DisplayWidth.fit(hint(model), to: width), .dim))
        } else if let message {
            // A one-field line shares the row above it with the message.
            bottom.insert(message, at: 0)
            cursor = cursor.map { ($0.row + 1, $0.column) }
        }
        let listHeight = height - 2 - bottom.count
        rows += model.mode == .help ? helpRows(width: width, height: listHeight) : listRows(model, width: width, height: listHeight)
        rows.append(Frame.Row(DisplayWidth.fit(status(model, width: width), to: width), .bar))
        let bottomStart = rows.count
        rows += bottom
        return Frame(
            width: width, height: height, rows: rows,
            cursor: cursor.map { (bottomStart + $0.row, min($0.column, width - 1)) })
    }

    /// How a line break shows in an input field: one character the cursor moves over and Backspace removes.
    public static let lineBreakMark = "⏎"

    /// The part of `field` shown in `room` columns, and the cursor's column in it: as much as fits from the
    /// start, or, when the text before the cursor is wider than that, as much before the cursor as leaves it a
    /// column of its own. Line breaks show as `lineBreakMark`, control characters as `TerminalText.visible` writes
    /// them, each as one piece the cursor steps over.
    static func window(_ field: InputLine.Field, room: Int) -> (text: String, column: Int) {
        guard room > 1 else { return ("", 0) }
        let text = field.text
        // One walk to the cursor, with the window's start trailing it: the start moves on whenever the text from
        // it to the cursor would leave the cursor no column.
        var start = text.startIndex
        var cursor = text.startIndex
        var before = 0
        var offset = 0
        while offset < field.cursor, cursor < text.endIndex {
            before += Piece(text[cursor]).width
            text.formIndex(after: &cursor)
            offset += 1
            while start < cursor, before > room - 1 {
                before -= Piece(text[start]).width
                text.formIndex(after: &start)
            }
        }
        // Everything from the start to the cursor fits; what follows the cursor is shown while it fits too.
        var shown = ""
        var used = 0
        var index = start
        while index < text.endIndex {
            let piece = Piece(text[index])
            let width = piece.width
            if used + width > room { break }
            piece.append(to: &shown)
            used += width
            text.formIndex(after: &index)
        }
        return (shown, before)
    }

    /// One character of an input field as `window` shows it: a line break as `lineBreakMark`, a character
    /// `TerminalText.visible` escapes as its escape, any other as itself (no `String` made for it).
    private enum Piece {
        case character(Character)
        case text(String)

        init(_ character: Character) {
            if character.isNewline {
                self = .text(FrameRenderer.lineBreakMark)
            } else if TerminalText.isSafe(character) {
                self = .character(character)
            } else {
                self = .text(TerminalText.visible(String(character)))
            }
        }

        /// The columns it takes (`DisplayWidth`).
        var width: Int {
            switch self {
            case .character(let character): DisplayWidth.of(character)
            case .text(let text): DisplayWidth.of(text)
            }
        }

        func append(to text: inout String) {
            switch self {
            case .character(let character): text.append(character)
            case .text(let piece): text += piece
            }
        }
    }

    private func line(_ model: ListViewModel) -> InputLine? {
        if case .input(let line) = model.mode { line } else { nil }
    }

    private static func prompt(_ purpose: InputLine.Purpose) -> String {
        switch purpose {
        case .add: "add: "
        case .edit: "title: "
        case .search: "/"
        case .tag: "tag: "
        }
    }

    private func header(_ model: ListViewModel) -> String {
        var text = " shelf · \(title) · \(model.items.count) item\(model.items.count == 1 ? "" : "s"), \(model.readCount) read"
        var filters: [String] = []
        if model.readFilter != .all { filters.append(model.readFilter.rawValue) }
        if !model.search.isEmpty { filters.append("/" + TerminalText.visible(model.search)) }
        if let tag = model.tagFilter { filters.append("#" + TerminalText.visible(tag)) }
        if !filters.isEmpty { text += " · showing \(model.visible.count): " + filters.joined(separator: " ") }
        return text
    }

    private func status(_ model: ListViewModel, width: Int) -> String {
        let connection = switch model.connection {
        case .connecting: "connecting…"
        case .connected: "live"
        case .reconnecting(let reason): "reconnecting…, read-only (\(TerminalText.visible(reason)))"
        }
        let left = " \(model.revision.map { "revision \($0)" } ?? "no list yet") · \(connection)"
        let right = "? keys "
        let room = width - DisplayWidth.of(right)
        return DisplayWidth.fit(left, to: max(0, room)) + right
    }

    private func hint(_ model: ListViewModel) -> String {
        model.visible.isEmpty && model.revision != nil
            ? (model.items.count == 0 ? " the list is empty: a adds an item" : " nothing matches: Esc clears the filters")
            : " a add · e edit · x read · d remove · / search · t tag · r read filter · q quit"
    }

    private func listRows(_ model: ListViewModel, width: Int, height: Int) -> [Frame.Row] {
        guard height > 0 else { return [] }
        let selected = model.selectedRow
        // The model keeps the selection on screen for its page size; a taller edit form may shrink the list.
        var top = model.top
        if let selected, selected >= top + height { top = selected - height + 1 }
        let shown = model.visible
        var rows: [Frame.Row] = []
        rows.reserveCapacity(height)
        for index in top..<min(shown.count, top + height) {
            let item = shown[index]
            let style: Frame.Style = index == selected ? .selected : item.isRead ? .dim : .normal
            rows.append(Frame.Row(DisplayWidth.fit(Self.row(item), to: width), style))
        }
        while rows.count < height { rows.append(Frame.Row(String(repeating: " ", count: width))) }
        return rows
    }

    /// One item's row: read mark, title, author, tags.
    static func row(_ item: Item) -> String {
        var text = " [\(item.isRead ? "x" : " ")] \(TerminalText.visible(item.title))"
        if let author = item.author { text += " — \(TerminalText.visible(author))" }
        if !item.tags.isEmpty { text += "  " + item.tags.map { "#" + TerminalText.visible($0) }.joined(separator: " ") }
        if item.note != nil { text += "  ✎" }
        return text
    }

    /// The keys, as `?` shows them.
    public static let keys: [(String, String)] = [
        ("↑ ↓  j k", "move"), ("PgUp PgDn  Home End", "move by a page, to the ends"),
        ("space  x", "mark read / unread"), ("a", "add (Enter saves, Esc cancels)"),
        ("e", "edit title, author, tags, note (Tab moves between them)"), ("d", "remove (asks: y removes)"),
        ("/", "search as you type (Enter keeps it, Esc clears it)"), ("t", "filter by a tag (empty: none)"),
        ("r", "all, unread, read"), ("Esc", "clear the filters"), ("?", "these keys"), ("q", "quit"),
        ("typing: ← →  Home End", "move the cursor (Ctrl-B Ctrl-F, Ctrl-A Ctrl-E)"),
        ("Bksp Del  Ctrl-U Ctrl-K", "delete a character; to the start, to the end"),
        ("Ctrl-W", "delete the word before the cursor"),
        ("Ctrl-J", "a line break in a note (shown as \(lineBreakMark))"),
    ]

    private func helpRows(width: Int, height: Int) -> [Frame.Row] {
        var rows = [Frame.Row(DisplayWidth.fit(" keys (any key closes this)", to: width))]
        for (key, what) in Self.keys {
            rows.append(Frame.Row(DisplayWidth.fit("   " + key.padding(toLength: 24, withPad: " ", startingAt: 0) + what, to: width)))
        }
        rows = Array(rows.prefix(height))
        while rows.count < height { rows.append(Frame.Row(String(repeating: " ", count: width))) }
        return rows
    }
}
