import Foundation
import ShelfCore

/// The input line at the bottom of the view: what it is for, its fields, and the save in flight, if any.
public struct InputLine: Sendable, Equatable {
    /// What Enter does with the text.
    public enum Purpose: Sendable, Equatable {
        /// Adds an item with the title.
        case add
        /// Updates the item `id`, conditional on its revision `expectItem` (the one the user started editing).
        case edit(id: UUID, expectItem: Revision)
        /// Filters the list as the text is typed (`/`).
        case search
        /// Filters by one tag (`t`).
        case tag
    }

    /// One labelled text field, with a cursor that edits it as readline does.
    public struct Field: Sendable, Equatable {
        /// Shown before the text (`title`, `author`, …).
        public let label: String
        /// What the user typed.
        public internal(set) var text: String
        /// The text the field started with: an edit sends only the fields whose text differs from it.
        public let original: String
        /// Where typing goes: the number of characters (grapheme clusters) before the cursor, 0...`text.count`.
        public internal(set) var cursor: Int
        /// Whether the text may hold line breaks (a note): Ctrl-J types one and a paste keeps its own, where other
        /// fields take a paste's line breaks as spaces.
        public let allowsLineBreaks: Bool

        /// A field `label` holding `text`, the cursor at its end.
        public init(_ label: String, _ text: String = "", allowsLineBreaks: Bool = false) {
            self.label = label
            self.text = text
            original = text
            cursor = text.count
            self.allowsLineBreaks = allowsLineBreaks
        }

        /// Whether the user changed the text.
        public var isChanged: Bool { text != original }

        /// The text before the cursor.
        private var beforeCursor: Substring { text[..<index(cursor)] }

        private func index(_ offset: Int) -> String.Index {
            text.index(text.startIndex, offsetBy: max(0, min(offset, text.count)))
        }

        /// Inserts `inserted` at the cursor and moves the cursor past it.
        mutating func insert(_ inserted: String) {
            let before = String(text[..<index(cursor)]) + inserted
            text = before + text[index(cursor)...]
            // Counted on the joined text: a combining mark typed joins the character before it.
            cursor = min(text.count, before.count)
        }

        /// Removes the characters between `offset` and the cursor (either side); the cursor ends at the start.
        mutating func delete(to offset: Int) {
            let offset = max(0, min(offset, text.count))
            let range = min(offset, cursor)..<max(offset, cursor)
            text.removeSubrange(index(range.lowerBound)..<index(range.upperBound))
            cursor = range.lowerBound
        }

        /// The offset of the start of the word before the cursor (readline's unix-word-rubout: the spaces before
        /// the cursor, then the other characters up to the space before them).
        var wordStartBeforeCursor: Int {
            let characters = Array(beforeCursor)
            var start = characters.count
            while start > 0, characters[start - 1].isWhitespace { start -= 1 }
            while start > 0, !characters[start - 1].isWhitespace { start -= 1 }
            return start
        }

        /// Applies one editing key to the text and the cursor; returns false for a key that is not one.
        mutating func edit(_ key: Key) -> Bool {
            switch key {
            case .character(let character): insert(String(character))
            case .paste(let pasted):
                if allowsLineBreaks {
                    insert(pasted.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n"))
                } else {
                    insert(String(pasted.map { $0.isNewline ? " " : $0 }))
                }
            case .control("j") where allowsLineBreaks: insert("\n")
            case .left, .control("b"): cursor = max(0, cursor - 1)
            case .right, .control("f"): cursor = min(text.count, cursor + 1)
            case .home, .control("a"): cursor = 0
            case .end, .control("e"): cursor = text.count
            case .backspace: delete(to: cursor - 1)
            case .delete, .control("d"): delete(to: cursor + 1)
            case .control("u"): delete(to: 0)
            case .control("k"): delete(to: text.count)
            case .control("w"): delete(to: wordStartBeforeCursor)
            default: return false
            }
            return true
        }
    }

    /// What Enter does.
    public var purpose: Purpose
    /// One for a title, a search or a tag; four (title, author, tags, note) for an edit.
    public var fields: [Field]
    /// The field being typed in.
    public var focus = 0
    /// The token of the save in flight from this line; `nil` while the user is typing.
    public var saving: UInt64?

    /// A line for `purpose` with `fields`.
    public init(_ purpose: Purpose, fields: [Field]) {
        self.purpose = purpose
        self.fields = fields
    }

    /// Applies an editing key to the focused field, or moves the focus; returns false for a key that does
    /// neither.
    mutating func edit(_ key: Key) -> Bool {
        switch key {
        case .tab, .down:
            focus = (focus + 1) % fields.count
        case .backTab, .up:
            focus = (focus + fields.count - 1) % fields.count
        default:
            return fields[focus].edit(key)
        }
        return true
    }

    /// The first field's text.
    public var text: String { fields.first?.text ?? "" }
}
