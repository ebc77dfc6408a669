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
    public var author: String?
    /// A link: an absolute `http` or `https` URL (`ItemField.validateURL`); `nil` for none.
    public var url: String?
    /// Tags: folded to lowercase, sorted by their UTF-8 bytes, without duplicates (`ItemField.validateTags`).
    public var tags: [String]
    /// Free text, newlines and tabs allowed (`ItemField.validateNote`); `nil` for none.
    public var note: String?
    /// When the item last became read, from the injected clock, whole milliseconds; `nil` while it is unread.
    public var readAt: Date?

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
        self.author = author
        self.url = url
        self.tags = tags
        self.note = note
        self.readAt = readAt
    }

    /// Whether the item has any member beyond the five every item has (then its JSON is longer than the plain
    /// layout the fast writers and readers handle).
    public var hasDetails: Bool {
        author != nil || url != nil || !tags.isEmpty || note != nil || readAt != nil
    }
}
