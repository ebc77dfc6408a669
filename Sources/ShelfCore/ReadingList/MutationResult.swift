import Foundation

/// What an accepted (or no-op) mutation answers: the list revision after it and the item it concerned.
public struct MutationResult: Sendable, Equatable {
    /// The list revision once this request took effect (unchanged for a no-op).
    public let revision: Revision
    /// The item after the change; `nil` for a removal.
    public let item: Item?
    /// The id of the item concerned.
    public let id: UUID
    /// The accepted change, or `nil` when the request changed nothing and nothing was written.
    public let change: RevisionedChange?

    /// A result; `change` nil means nothing was written.
    public init(revision: Revision, item: Item?, id: UUID, change: RevisionedChange?) {
        self.revision = revision
        self.item = item
        self.id = id
        self.change = change
    }
}
