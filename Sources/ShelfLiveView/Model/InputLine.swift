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

    /// One labelled text field.
    public struct Field: Sendable, Equatable {
        /// Shown before the text (`title`, `author`, …).
        public let label: String
        /// What the user typed.
        public var text: String
        /// The text the field started with: an edit sends only the fields whose text differs from it.
        public let original: String

        /// A field `label` holding `text`.
        public init(_ label: String, _ text: String = "") {
            self.label = label
            self.text = text
            original = text
        }

        /// Whether the user changed the text.
        public var isChanged: Bool { text != original }
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

    /// Applies an editing key; returns false for a key that does not edit text.
    mutating func edit(_ key: Key) -> Bool {
        switch key {
        case .character(let character):
            fields[focus].text.append(character)
        case .paste(let text):
            // One line per field: line breaks in a paste become spaces (the note keeps what the server accepts).
            fields[focus].text += String(text.map { $0.isNewline ? " " : $0 })
        case .backspace:
            if !fields[focus].text.isEmpty { fields[focus].text.removeLast() }
        case .control("u"):
            fields[focus].text = ""
        case .control("w"):
            var text = fields[focus].text
            while text.last == " " { text.removeLast() }
            while let last = text.last, last != " " { text.removeLast() }
            fields[focus].text = text
        case .tab, .down:
            focus = (focus + 1) % fields.count
        case .backTab, .up:
            focus = (focus + fields.count - 1) % fields.count
        default:
            return false
        }
        return true
    }

    /// The first field's text.
    public var text: String { fields.first?.text ?? "" }
}
