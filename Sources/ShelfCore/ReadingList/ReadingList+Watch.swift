extension ReadingList {
    /// Starts a watch: calls `register` on the actor with the retained changes after `since` (in order) and the
    /// current revision. No change is published while `register` runs, so a watcher that registers itself there
    /// (with a `subscribe(_:)` handler already in place) sees every change after `since` exactly once, with no gap.
    /// - Parameter since: the revision the watcher already has; `nil` means the current one (no backlog).
    /// - Returns: the current revision.
    /// - Throws: `ReadingListError.compacted` when changes after `since` are no longer retained or `since` is ahead
    ///   of the list; `register` is not called then.
    @discardableResult
    public func watch(
        since: Revision?, register: @Sendable (_ backlog: [RevisionedChange], _ revision: Revision) -> Void
    ) throws(ReadingListError) -> Revision {
        let from = since ?? accepted.revision
        guard from <= accepted.revision, let backlog = history.changes(after: from) else {
            throw .compacted(requested: from, current: accepted.revision)
        }
        register(backlog, accepted.revision)
        return accepted.revision
    }

    /// Ends a watch: calls `unregister` on the actor and returns the current revision. No change is published while
    /// `unregister` runs, so a watcher that removes itself there was handed every change up to that revision and
    /// none after it (the `unwatch` reply's revision, protocol/PROTOCOL.md §6).
    /// - Returns: the current revision.
    public func unwatch(_ unregister: @Sendable () -> Void) -> Revision {
        unregister()
        return accepted.revision
    }
}
