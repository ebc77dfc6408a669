import Foundation

/// One entry of the reading list.
///
/// Identity is the `id` alone: titles may repeat, and an item is never found by title or position
/// (shared/design.md, invariant 6).
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

    /// Makes an item from already-validated parts.
    public init(id: UUID, title: String, isRead: Bool, addedAt: Date, revision: Revision) {
        self.id = id
        self.title = title
        self.isRead = isRead
        self.addedAt = addedAt
        self.revision = revision
    }
}
