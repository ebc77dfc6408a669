/// What an `update` changes in one item, before validation (protocol/PROTOCOL.md §5, `update`). Members left at
/// `.keep` are not touched; an edit that changes nothing writes nothing.
public struct ItemEdit: Sendable, Equatable, Hashable {
    /// One optional text member's change.
    public enum Field: Sendable, Equatable, Hashable {
        /// Leave it as it is.
        case keep
        /// Remove it (`null` on the wire).
        case clear
        /// Set it to this raw text (validated like the member).
        case set(String)
    }

    /// The tags' change: a whole new set, or tags added and removed.
    public enum Tags: Sendable, Equatable, Hashable {
        /// Replace the set.
        case replace([String])
        /// Add these, then remove those (either may be empty).
        case adjust(add: [String], remove: [String])
    }

    /// A new raw title; `nil` keeps it.
    public var title: String?
    /// The author's change; set text is validated by `ItemField.validateAuthor` (blank clears it).
    public var author: Field
    /// The URL's change; set text is validated by `ItemField.validateURL` (blank clears it).
    public var url: Field
    /// The note's change; set text is validated by `ItemField.validateNote` (blank clears it).
    public var note: Field
    /// The tags' change: `.adjust(add: [], remove: [])` keeps them; each tag is validated by `ItemField.validateTag`.
    public var tags: Tags

    /// An edit; everything kept by default.
    public init(
        title: String? = nil, author: Field = .keep, url: Field = .keep, note: Field = .keep,
        tags: Tags = .adjust(add: [], remove: [])
    ) {
        self.title = title
        self.author = author
        self.url = url
        self.note = note
        self.tags = tags
    }

    /// Whether the edit names nothing to change.
    public var isEmpty: Bool {
        title == nil && author == .keep && url == .keep && note == .keep && tags == .adjust(add: [], remove: [])
    }
}
