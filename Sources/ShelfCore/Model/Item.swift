import Foundation

/// One entry of the reading list.
///
/// Identity is the `id` alone: titles may repeat, and an item is never found by title or position
/// (README "Inside", invariant 6). Every member but `id`, `title`, `isRead`, `addedAt` and `revision` is optional on
/// the wire and in stored files (protocol/PROTOCOL.md §4), so old clients and old files keep working.
public struct Item: Sendable, Equatable, Hashable, Identifiable {
    /// Stable identity, assigned once by the injected id generator.
    public let id: UUID
    /// Trimmed, non-blank, at most `Title.maxLength` characters, no control characters (see `Title`).
    public var title: String
    /// Whether the item has been read.
    public var isRead: Bool
    /// When the item was added, from the injected clock, truncated to whole milliseconds so that it survives
    /// a round trip through RFC 3339 text unchanged.
    public let addedAt: Date
    /// The list revision at which this item last changed.
    public var revision: Revision
    /// Who wrote it: trimmed, at most `ItemField.maxAuthorLength` characters, no control characters; `nil` for none.
    public var author: String? {
        get { details?.author }
        set { setDetails(author: newValue) }
    }
    /// A link: an absolute `http` or `https` URL (`ItemField.validateURL`); `nil` for none.
    public var url: String? {
        get { details?.url }
        set { setDetails(url: newValue) }
    }
    /// Tags: folded to lowercase, sorted by their UTF-8 bytes, without duplicates (`ItemField.validateTags`).
    public var tags: [String] {
        get { details?.tags ?? [] }
        set { setDetails(tags: newValue) }
    }
    /// Free text, newlines and tabs allowed (`ItemField.validateNote`); `nil` for none.
    public var note: String? {
        get { details?.note }
        set { setDetails(note: newValue) }
    }
    /// When the item last became read, from the injected clock, whole milliseconds; `nil` while it is unread.
    public var readAt: Date? {
        get { details?.readAt }
        set { setDetails(readAt: newValue) }
    }

    /// The optional members, in one shared box that an item without any of them does not have: items are copied
    /// on every change, into the history and the list's pages, and the usual item must not carry their room.
    private final class Details: Sendable {
        let author: String?
        let url: String?
        let tags: [String]
        let note: String?
        let readAt: Date?

        init(author: String?, url: String?, tags: [String], note: String?, readAt: Date?) {
            self.author = author
            self.url = url
            self.tags = tags
            self.note = note
            self.readAt = readAt
        }
    }

    private var details: Details?

    /// Makes an item from already-validated parts.
    public init(
        id: UUID, title: String, isRead: Bool, addedAt: Date, revision: Revision,
        author: String? = nil, url: String? = nil, tags: [String] = [], note: String? = nil, readAt: Date? = nil
    ) {
        self.id = id
        self.title = title
        self.isRead = isRead
        self.addedAt = addedAt
        self.revision = revision
        details = Self.box(author: author, url: url, tags: tags, note: note, readAt: readAt)
    }

    private static func box(author: String?, url: String?, tags: [String], note: String?, readAt: Date?) -> Details? {
        author == nil && url == nil && tags.isEmpty && note == nil && readAt == nil
            ? nil : Details(author: author, url: url, tags: tags, note: note, readAt: readAt)
    }

    /// A new box with the given members changed (a box is shared between copies, so it is never changed in place).
    private mutating func setDetails(
        author: String?? = nil, url: String?? = nil, tags: [String]? = nil, note: String?? = nil, readAt: Date?? = nil
    ) {
        details = Self.box(
            author: author ?? self.author, url: url ?? self.url, tags: tags ?? self.tags, note: note ?? self.note,
            readAt: readAt ?? self.readAt)
    }

    /// Whether the item has any member beyond the five every item has (then its JSON is longer than the plain
    /// layout the fast writers and readers handle).
    public var hasDetails: Bool { details != nil }

    public static func == (a: Item, b: Item) -> Bool {
        a.id == b.id && a.title == b.title && a.isRead == b.isRead && a.addedAt == b.addedAt && a.revision == b.revision
            && a.author == b.author && a.url == b.url && a.tags == b.tags && a.note == b.note && a.readAt == b.readAt
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(id)
        hasher.combine(title)
        hasher.combine(isRead)
        hasher.combine(addedAt)
        hasher.combine(revision)
        hasher.combine(author)
        hasher.combine(url)
        hasher.combine(tags)
        hasher.combine(note)
        hasher.combine(readAt)
    }
}
