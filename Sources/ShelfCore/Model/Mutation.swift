import Foundation

/// A request to change the list, before validation. Titles are raw user text; `ReadingList` applies `Title` rules.
public enum Mutation: Sendable, Equatable {
    case add(title: String)
    case setRead(id: UUID, isRead: Bool)
    case toggle(id: UUID)
    case rename(id: UUID, title: String)
    case remove(id: UUID)
}
