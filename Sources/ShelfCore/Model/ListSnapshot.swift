/// The accepted list at one revision: what `list` returns and what a store loads and saves.
public struct ListSnapshot: Sendable, Equatable {
    /// The list revision (0 for a new store).
    public var revision: Revision
    /// The items in the order they were added.
    public var items: ItemCollection

    /// A list at `revision` holding `items` (empty at revision 0 by default).
    public init(revision: Revision = 0, items: ItemCollection = ItemCollection()) {
        self.revision = revision
        self.items = items
    }
}
