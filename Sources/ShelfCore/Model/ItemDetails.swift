import Foundation

/// The optional members of a new item, as sent to `add`, before validation (protocol/PROTOCOL.md §4, §5, §9).
public struct ItemDetails: Sendable, Equatable, Hashable {
    /// Raw author text; `nil` for none.
    public var author: String?
    /// Raw URL text; `nil` for none.
    public var url: String?
    /// Raw tags, in any case and order, duplicates allowed.
    public var tags: [String]
    /// Raw note text; `nil` for none.
    public var note: String?
    /// What an import keeps from the list it came from (`add`'s `id`, `addedAt`, `isRead`, `readAt`); all `nil`
    /// for an ordinary add, which draws the id and takes the times from the server's clock.
    public var origin: Origin

    /// An item's identity, dates and read state as another list had them (protocol/PROTOCOL.md §5, "Adding an item
    /// as it was").
    public struct Origin: Sendable, Equatable, Hashable {
        /// The id to keep; refused (`12 id_taken`) when an item on the list has it.
        public var id: UUID?
        /// When it was added there; whole milliseconds.
        public var addedAt: Date?
        /// Whether it was read; `nil` is unread, unless `readAt` is given.
        public var isRead: Bool?
        /// When it was read; only for an item that is read. Without it a read item's `readAt` is the server's now.
        public var readAt: Date?

        /// What to keep; each `nil` is left to the server (a drawn id, its clock, unread).
        public init(id: UUID? = nil, addedAt: Date? = nil, isRead: Bool? = nil, readAt: Date? = nil) {
            self.id = id
            self.addedAt = addedAt
            self.isRead = isRead
            self.readAt = readAt
        }

        /// Nothing kept: an ordinary add.
        public var isEmpty: Bool { id == nil && addedAt == nil && isRead == nil && readAt == nil }
    }

    /// Details; all empty by default (an `add` of a title alone).
    public init(
        author: String? = nil, url: String? = nil, tags: [String] = [], note: String? = nil, origin: Origin = Origin()
    ) {
        self.author = author
        self.url = url
        self.tags = tags
        self.note = note
        self.origin = origin
    }

    /// No detail given.
    public var isEmpty: Bool { author == nil && url == nil && tags.isEmpty && note == nil && origin.isEmpty }
}
