import Foundation

/// The optional members of a new item, as sent to `add`, before validation (protocol/PROTOCOL.md §4, §5, §9).
///
/// The members live in one shared box, absent for an add of a title alone: a `Mutation` is copied several times on
/// the way to the list, and a plain add must not carry 130 bytes of empty members through each copy.
public struct ItemDetails: Sendable, Equatable, Hashable {
    private final class Box: Sendable {
        let author: String?
        let url: String?
        let tags: [String]
        let note: String?
        let origin: Origin

        init(author: String?, url: String?, tags: [String], note: String?, origin: Origin) {
            self.author = author
            self.url = url
            self.tags = tags
            self.note = note
            self.origin = origin
        }
    }

    private var box: Box?

    /// Raw author text; `nil` for none.
    public var author: String? {
        get { box?.author }
        set { set(author: newValue) }
    }
    /// Raw URL text; `nil` for none.
    public var url: String? {
        get { box?.url }
        set { set(url: newValue) }
    }
    /// Raw tags, in any case and order, duplicates allowed.
    public var tags: [String] {
        get { box?.tags ?? [] }
        set { set(tags: newValue) }
    }
    /// Raw note text; `nil` for none.
    public var note: String? {
        get { box?.note }
        set { set(note: newValue) }
    }
    /// What an import keeps from the list it came from (`add`'s `id`, `addedAt`, `isRead`, `readAt`); all `nil`
    /// for an ordinary add, which draws the id and takes the times from the server's clock.
    public var origin: Origin {
        get { box?.origin ?? Origin() }
        set { set(origin: newValue) }
    }

    /// A new box with one member changed (the box is shared, so it is never changed in place); none when all are
    /// empty.
    private mutating func set(
        author: String?? = nil, url: String?? = nil, tags: [String]? = nil, note: String?? = nil, origin: Origin? = nil
    ) {
        self = ItemDetails(
            author: author ?? self.author, url: url ?? self.url, tags: tags ?? self.tags, note: note ?? self.note,
            origin: origin ?? self.origin)
    }

    public static func == (a: ItemDetails, b: ItemDetails) -> Bool {
        a.author == b.author && a.url == b.url && a.tags == b.tags && a.note == b.note && a.origin == b.origin
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(author)
        hasher.combine(url)
        hasher.combine(tags)
        hasher.combine(note)
        hasher.combine(origin)
    }

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
        let empty = author == nil && url == nil && tags.isEmpty && note == nil && origin.isEmpty
        box = empty ? nil : Box(author: author, url: url, tags: tags, note: note, origin: origin)
    }

    /// No detail given.
    public var isEmpty: Bool { box == nil }
}
