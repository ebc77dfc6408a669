import Foundation

/// What an accepted (or no-op) mutation answers: the list revision after it and the item it concerned.
///
/// The item is held once, inside the change when there is one: a result is copied on its way from the list to
/// the reply, and each copy of an item retains its parts.
public struct MutationResult: Sendable, Equatable {
    /// The list revision once this request took effect (unchanged for a no-op).
    public let revision: Revision
    private let body: Body

    private enum Body: Sendable, Equatable {
        /// Accepted and written, at `revision`.
        case changed(ListChange)
        /// Nothing to write: the item as it is.
        case unchanged(Item)
    }

    /// An accepted change, made at list revision `revision`.
    public init(change: ListChange, revision: Revision) {
        self.revision = revision
        body = .changed(change)
    }

    /// A request that changed nothing (nothing was written), with the list at `revision`.
    public init(unchanged item: Item, revision: Revision) {
        self.revision = revision
        body = .unchanged(item)
    }

    /// The item after the change; `nil` for a removal.
    public var item: Item? {
        switch body {
        case .changed(.added(let item)), .changed(.updated(let item)), .unchanged(let item): item
        case .changed(.removed): nil
        }
    }

    /// The id of the item concerned.
    public var id: UUID {
        switch body {
        case .changed(let change): change.itemID
        case .unchanged(let item): item.id
        }
    }

    /// The accepted change, or `nil` when the request changed nothing and nothing was written.
    public var change: RevisionedChange? {
        guard case .changed(let change) = body else { return nil }
        return RevisionedChange(revision: revision, change: change)
    }
}
