import Foundation

/// A request to change the list, before validation. Titles are raw user text; `ReadingList` applies `Title` rules.
public enum Mutation: Sendable, Equatable {
    /// `add`: a new unread item, with its optional members.
    case add(title: String, details: ItemDetails = ItemDetails())
    /// `mark`: set the read state (a no-op when it already is).
    case setRead(id: UUID, isRead: Bool)
    /// `toggle`: flip the read state.
    case toggle(id: UUID)
    /// `rename`: a new title (a no-op when it is the same once trimmed).
    case rename(id: UUID, title: String)
    /// `remove`: the item is gone.
    case remove(id: UUID)
    /// `update`: any of the title, author, URL, note and tags in one change (a no-op when nothing differs once
    /// validated).
    indirect case update(id: UUID, ItemEdit)

    /// Whether it is an `add`.
    public var isAdd: Bool {
        if case .add = self { return true }
        return false
    }

    /// The item the mutation changes; `nil` for `add`.
    public var targetID: UUID? {
        switch self {
        case .add: nil
        case .setRead(let id, _), .toggle(let id), .rename(let id, _), .remove(let id), .update(let id, _): id
        }
    }
}
