import ShelfCore
import ShelfWire
import Synchronization

/// Fans published changes out to the sessions that watch: each change is encoded once, as one `changed`
/// notification line, and queued on every watcher's outbox. A watcher whose outbox overflows is dropped and told
/// to close (slow consumer).
final class ChangeFeed: Sendable {
    struct Watcher: Sendable {
        let outbox: Outbox
        /// Called once the outbox overflowed (the watcher was removed).
        let overflowed: @Sendable () -> Void
        /// Called when `notify` handed the caller a direct write: the session sends the queued notifications.
        let flush: @Sendable () -> Void
    }

    private let watchers = Mutex<[UInt64: Watcher]>([:])

    /// Adds (or replaces) a watcher. Call inside `ReadingList.watch`'s `register`, so no change is published
    /// between the backlog the watcher is given and the first live change it is sent.
    func add(_ id: UInt64, _ watcher: Watcher) {
        watchers.withLock { $0[id] = watcher }
    }

    /// Whether `id` is watching.
    func isWatching(_ id: UInt64) -> Bool {
        watchers.withLock { $0[id] != nil }
    }

    /// Stops sending to `id`. Idempotent.
    func remove(_ id: UInt64) {
        _ = watchers.withLock { $0.removeValue(forKey: id) }
    }

    /// Sends `change` to every watcher (runs on the `ReadingList` actor: keep it short).
    func publish(_ change: RevisionedChange) {
        let current = watchers.withLock { $0 }
        guard !current.isEmpty else { return }
        let line = ServerNotification.changed(change).line
        for (id, watcher) in current {
            switch watcher.outbox.notify(revision: change.revision, line: line) {
            case .queued: break
            case .directWrite: watcher.flush()
            case .overflowed:
                remove(id)
                watcher.overflowed()
            }
        }
    }
}
