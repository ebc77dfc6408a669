import Foundation

/// A request to change the list, before validation. Titles are raw user text; `ReadingList` applies `Title` rules.
public enum Mutation: Sendable, Equatable {
    /// `add`: a new unread item.
    case add(title: String)
    /// `mark`: set the read state (a no-op when it already is).
    case setRead(id: UUID, isRead: Bool)
    /// `toggle`: flip the read state.
    case toggle(id: UUID)
    /// `rename`: a new title (a no-op when it is the same once trimmed).
    case rename(id: UUID, title: String)
    /// `remove`: the item is gone.
    case remove(id: UUID)
}
