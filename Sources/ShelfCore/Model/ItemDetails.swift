/// The optional members of a new item, as sent to `add`, before validation (protocol/PROTOCOL.md §4, §9).
public struct ItemDetails: Sendable, Equatable, Hashable {
    /// Raw author text; `nil` for none.
    public var author: String?
    /// Raw URL text; `nil` for none.
    public var url: String?
    /// Raw tags, in any case and order, duplicates allowed.
    public var tags: [String]
    /// Raw note text; `nil` for none.
    public var note: String?

    /// Details; all empty by default (an `add` of a title alone).
    public init(author: String? = nil, url: String? = nil, tags: [String] = [], note: String? = nil) {
        self.author = author
        self.url = url
        self.tags = tags
        self.note = note
    }

    /// No detail given.
    public var isEmpty: Bool { author == nil && url == nil && tags.isEmpty && note == nil }
}
