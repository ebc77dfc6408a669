import ShelfCore
import ShelfWire

/// Fans published changes out to the sessions that watch: each change is encoded once, as one `changed`
/// notification line, and queued on every watcher (`Session.notify`), which flushes it at the end of the loop's
/// round. A watcher that cannot take it is cut off as a slow consumer and removed.
@ServingLoop final class ChangeFeed {
    private var watchers: [UInt64: Session] = [:]

    /// Adds (or replaces) a watcher: inside `ReadingList.watch`'s `register`, so no change is published between
    /// the backlog the watcher is given and the first live change it is sent.
    func add(_ session: Session) {
        watchers[session.connection.id] = session
    }

    func isWatching(_ id: UInt64) -> Bool {
        watchers[id] != nil
    }

    /// Stops sending to `id`. Idempotent.
    func remove(_ id: UInt64) {
        watchers[id] = nil
    }

    /// Sends `change` to every watcher (from the list's publish, in revision order).
    func publish(_ change: RevisionedChange) {
        guard !watchers.isEmpty else { return }
        let line = ServerNotification.changed(change).line
        for (id, session) in watchers where !session.notify(revision: change.revision, line: line) {
            watchers[id] = nil
        }
    }
}
