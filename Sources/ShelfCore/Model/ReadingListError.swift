import Foundation

/// Why the reading list refused a request. Each case maps to one protocol error code (protocol/PROTOCOL.md,
/// "Errors"); `description` is the message shown to users.
public enum ReadingListError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The title breaks a `Title` rule; nothing was written.
    case invalidTitle(Title.Problem)
    /// An author, URL, tag or note breaks an `ItemField` rule; nothing was written.
    case invalidField(ItemField.Problem)
    /// No item has this id; nothing was written.
    case notFound(UUID)
    /// An `add` asked to keep an id that an item on the list has; nothing was written.
    case idTaken(UUID)
    /// The request carried `expect` but the list is at `current`, or `expectItem` but the item is at
    /// `itemRevision`; nothing was written.
    case conflict(current: Revision, itemRevision: Revision? = nil)
    /// The store did not accept the change; the list and revision are as they were before.
    case storageFailed(StorageError)
    /// A watch asked for changes after `requested`, but they are no longer kept (or `requested` is ahead of the
    /// list, at `current`): the watcher must list again.
    case compacted(requested: Revision, current: Revision)

    public var description: String {
        switch self {
        case .invalidTitle(let problem): problem.description
        case .invalidField(let problem): problem.description
        case .notFound: "This item is no longer available"
        case .idTaken(let id): "An item with id \(id.wireString) is already on the list"
        case .conflict(let current, let itemRevision?):
            "The item changed (now at revision \(itemRevision); the list is at \(current)); reload it and try again"
        case .conflict(let current, nil): "The list changed (now at revision \(current)); reload and try again"
        case .storageFailed: "Could not save that change"
        case .compacted(let requested, let current) where requested > current:
            "Revision \(requested) is ahead of the list (at \(current)); list again and watch from there"
        case .compacted(let requested, let current):
            "Changes after revision \(requested) are no longer kept (the list is at \(current)); list again and watch from there"
        }
    }
}
