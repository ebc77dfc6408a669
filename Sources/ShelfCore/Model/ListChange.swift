import Foundation

/// One accepted change to the list: what watchers are told and what a journal records.
public enum ListChange: Sendable, Equatable {
    /// A new item, as stored.
    case added(Item)
    /// An existing item after the change (read state or title).
    case updated(Item)
    /// The item with this id is gone.
    case removed(UUID)

    /// The id of the item the change is about.
    public var itemID: UUID {
        switch self {
        case .added(let item), .updated(let item): item.id
        case .removed(let id): id
        }
    }
}
