import Foundation
import ShelfClient
import ShelfCommandLine
import ShelfCore

/// Which list a revision of `shelf watch` belongs to: a revision names a point in one server run's history
/// (protocol/PROTOCOL.md §6), so a watch resumes only on a server whose identity matches.
struct WatchIdentity: Sendable, Equatable {
    /// `hello`'s `run`; `nil` from a server that sends none.
    var run: String?
    /// `hello`'s `list`, the stored list's identity; `nil` from a server that sends none.
    var list: UUID?

    /// The identity `hello` answered.
    init(_ hello: HelloResult) {
        run = hello.run
        list = hello.listID
    }

    init(run: String?, list: UUID? = nil) {
        self.run = run
        self.list = list
    }

    /// Whether a revision seen under `self` means the same list under `other` (protocol/PROTOCOL.md §5): the same
    /// list identity, whether or not the server restarted in between; from a server without list identities, the
    /// same run. The one place that decides it.
    func continues(in other: WatchIdentity) -> Bool {
        if let list, let otherList = other.list { return list == otherList }
        return run == other.run
    }
}

/// How a watch starts on a new connection, decided from `hello` (`WatchModel.start(after:)`).
enum WatchStart: Sendable, Equatable {
    /// Nothing shown yet: list, then watch from the list's revision.
    case list
    /// The same list: watch from the last revision shown.
    case resume(since: Revision)
    /// Another run of the server (the revision may name another list): list again.
    case relist(restartedSince: Revision)
}

/// Why a connection of `shelf watch` ended, for what it says before reconnecting.
enum WatchEnding: Sendable, Equatable {
    /// The connection ended with no word from the server.
    case lost
    /// The server said `closing` (protocol/PROTOCOL.md §12) before it closed: `reason`, its `message`.
    case closed(reason: String, message: String)
    /// A ping went unanswered for `--timeout` (this many seconds).
    case unanswered(seconds: Int64)
}

/// What `shelf watch` has shown and every decision it makes on an event, with no I/O: which start a new connection
/// takes, which change is shown, what is said on stderr. `WatchRunner` does the calls; `WatchScreen` prints.
struct WatchModel: Sendable {
    /// The list as last shown, in the server identity that produced it.
    struct Shown: Sendable, Equatable {
        /// The last revision shown.
        var revision: Revision
        /// The items as of `revision`, to name removed ones.
        var items: [UUID: Item]
        var identity: WatchIdentity
    }

    /// What the model is waiting for.
    enum State: Sendable, Equatable {
        /// Nothing shown yet.
        case new
        /// A list was shown; changes after `revision` are shown as they come.
        case showing(Shown)
    }

    /// A change to show (`WatchScreen.show(_:)`), and the item as it was shown before it, if it was (for a removal,
    /// the item it took).
    struct ShownChange: Sendable, Equatable {
        var change: RevisionedChange
        var previous: Item?

        /// The title of the item a removal took, if it was shown.
        var removedTitle: String? {
            guard case .removed = change.change else { return nil }
            return previous?.title
        }

        /// The lines that say what changed (`WatchModel.describe(_:)`).
        var lines: [String] { WatchModel.describe(self) }
    }

    private(set) var state = State.new
    /// The address watched, for messages.
    let server: String

    init(server: String) {
        self.server = server
    }

    /// The identity of the server that answered `hello` on a new connection decides how the watch goes on.
    func start(after hello: HelloResult) -> WatchStart {
        guard case .showing(let shown) = state else { return .list }
        if shown.identity.continues(in: WatchIdentity(hello)) { return .resume(since: shown.revision) }
        return .relist(restartedSince: shown.revision)
    }

    /// A list was read (and is shown): changes after `revision` come next.
    mutating func listed(revision: Revision, items: [Item], identity: WatchIdentity) {
        state = .showing(Shown(
            revision: revision, items: Dictionary(items.map { ($0.id, $0) }, uniquingKeysWith: { $1 }), identity: identity))
    }

    /// A `changed` notification: the change to show, or `nil` for one at or below the last revision shown (a
    /// resumed watch may be sent it again), or before any list.
    mutating func changed(_ change: RevisionedChange) -> ShownChange? {
        guard case .showing(var shown) = state, change.revision > shown.revision else { return nil }
        let previous: Item?
        switch change.change {
        case .added(let item), .updated(let item):
            previous = shown.items.updateValue(item, forKey: item.id)
        case .removed(let id):
            previous = shown.items.removeValue(forKey: id)
        }
        shown.revision = change.revision
        state = .showing(shown)
        return ShownChange(change: change, previous: previous)
    }

    /// What `shelf watch` prints for `shown`: `+ 3fa2b1c4 Dune` for an item added, `- 3fa2b1c4 Dune` for one
    /// removed, and for one changed a line per member that differs from the item as last shown, each
    /// `~ ID MEMBER: …` — `read: TITLE` / `unread: TITLE`, `title: OLD -> NEW`, `author: OLD -> NEW` and `url: OLD
    /// -> NEW` (`(none)` for a member absent), `tags: +ADDED -REMOVED`, `note added|changed|removed: TITLE` (a note
    /// may be long: its text is for `show`). A change to an item not shown before, or one that changed none of
    /// those, is `~ ROW` (`ItemRow.text`).
    static func describe(_ shown: ShownChange) -> [String] {
        switch shown.change.change {
        case .added(let item):
            return ["+ \(ItemRow.shortID(item)) \(TerminalText.visible(item.title))"]
        case .removed(let id):
            return ["- \(String(id.wireString.prefix(8)))\(shown.previous.map { " " + TerminalText.visible($0.title) } ?? "")"]
        case .updated(let item):
            let changed = shown.previous.map { differences(from: $0, to: item) } ?? []
            if changed.isEmpty { return ["~ \(ItemRow.text(item))"] }
            return changed.map { "~ \(ItemRow.shortID(item)) \($0)" }
        }
    }

    /// One text per member that differs, in the order of `show`.
    private static func differences(from old: Item, to new: Item) -> [String] {
        let title = TerminalText.visible(new.title)
        func shown(_ text: String?) -> String { text.map(TerminalText.visible) ?? "(none)" }
        var lines: [String] = []
        if old.title != new.title { lines.append("title: \(TerminalText.visible(old.title)) -> \(title)") }
        if old.author != new.author { lines.append("author: \(shown(old.author)) -> \(shown(new.author))") }
        if old.url != new.url { lines.append("url: \(shown(old.url)) -> \(shown(new.url))") }
        if old.tags != new.tags {
            let added = new.tags.filter { !old.tags.contains($0) }.map { "+" + TerminalText.visible($0) }
            let removed = old.tags.filter { !new.tags.contains($0) }.map { "-" + TerminalText.visible($0) }
            lines.append("tags: " + (added + removed).joined(separator: " "))
        }
        if old.isRead != new.isRead { lines.append("\(new.isRead ? "read" : "unread"): \(title)") }
        if old.note != new.note {
            let what = old.note == nil ? "added" : new.note == nil ? "removed" : "changed"
            lines.append("note \(what): \(title)")
        }
        return lines
    }

    /// What to say when a watch is refused with `6 compacted` after revision `since`: the watcher fell behind
    /// (more than `--history` changes while it could not take them, or too many to send at once). It lists again
    /// by itself, so the server's advice to list again is not passed on.
    func fellBehind(since: Revision) -> String {
        "fell behind: the server no longer keeps the changes after revision \(since) for this watch; listing again"
    }

    /// What to say when the watch starts as `start`, if anything.
    func saying(_ start: WatchStart) -> String? {
        guard case .relist(let since) = start else { return nil }
        return "\(server) restarted since revision \(since); listing again"
    }

    /// What to say when a connection ended as `ending`; the watch then reconnects.
    func saying(_ ending: WatchEnding) -> String {
        switch ending {
        case .lost:
            "lost the connection to \(server); reconnecting"
        case .closed(reason: "shutdown", _):
            "shelfd at \(server) is shutting down; reconnecting when it is back"
        case .closed(_, let message):
            "the server closed the connection (\(message)); reconnecting"
        case .unanswered(let seconds):
            "no reply from \(server) to a ping within \(seconds) s; reconnecting"
        }
    }
}
