import Foundation
import ShelfCore

/// Where the live view's list comes from and its changes go: the network client (`NetworkListRepository`) or an
/// in-process `ReadingList` (`InProcessListRepository`, for tests). `ListViewModel` decides; `LiveViewDriver`
/// calls these.
public protocol ListRepository: Sendable {
    /// Opens a connection (a no-op in process).
    /// - Returns: the identity of the list (`hello`'s `list`, else its `run` from a server without list identities,
    ///   protocol/PROTOCOL.md §5): a revision resumes only within one.
    func connect() async throws(RepositoryError) -> String?
    /// Every item, in the list's order, and the revision they were read at.
    func list() async throws(RepositoryError) -> (revision: Revision, items: [Item])
    /// Watches from `since`: every change after it, once, in revision order, then live ones, until the connection
    /// ends. `RepositoryError.compacted` when the changes after `since` are no longer kept.
    func watch(since: Revision) async throws(RepositoryError) -> AsyncStream<RepositoryEvent>
    /// Applies `mutation`, conditional on the item's revision when `expectItem` is set.
    /// - Returns: the list's revision after it, and the id of the item it made or changed.
    func apply(_ mutation: Mutation, expectItem: Revision?) async throws(RepositoryError) -> SaveResult
    /// Ends the connection; a watch's stream ends.
    func disconnect() async
}

/// What a watch delivers.
public enum RepositoryEvent: Sendable, Equatable {
    /// An accepted change.
    case changed(RevisionedChange)
    /// The server said why it is closing the connection (`closing`'s message); the stream ends next.
    case closing(String)
}

/// What an accepted save answers.
public struct SaveResult: Sendable, Equatable {
    /// The list's revision after the save.
    public var revision: Revision
    /// The item added or changed; `nil` for a removal.
    public var itemID: UUID?

    /// A result at `revision` for the item `itemID`.
    public init(revision: Revision, itemID: UUID?) {
        self.revision = revision
        self.itemID = itemID
    }
}

/// Why a repository call failed, in the terms the view shows.
public enum RepositoryError: Error, Sendable, Equatable {
    /// `expectItem` did not match: the item is at `itemRevision` now (`nil` when the server did not say).
    case conflict(message: String, itemRevision: Revision?)
    /// The list refused the change (an invalid title, a failed save, an item gone): nothing was written.
    case refused(String)
    /// The changes after the watch's `since` are no longer kept: list again.
    case compacted(String)
    /// The server cannot be reached, or the connection ended.
    case unavailable(String)

    /// What the view says.
    public var message: String {
        switch self {
        case .conflict(let message, _), .refused(let message), .compacted(let message), .unavailable(let message): message
        }
    }
}
