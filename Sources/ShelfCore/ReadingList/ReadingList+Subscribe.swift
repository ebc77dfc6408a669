extension ReadingList {
    /// Calls `handler` with every change published from now on, in revision order, on the actor (keep it short and
    /// non-blocking). Returns a token for `unsubscribe(_:)`.
    public func subscribe(_ handler: @escaping @Sendable (RevisionedChange) -> Void) -> UInt64 {
        let token = nextSubscriber
        nextSubscriber += 1
        subscribers[token] = handler
        return token
    }

    /// Stops calls to the handler registered with `token`.
    public func unsubscribe(_ token: UInt64) {
        subscribers[token] = nil
    }

    /// Calls `handler` on the actor each time a save fails and the list rolls back (keep it short and non-blocking;
    /// `shelfd` logs it). Replaces an earlier handler.
    public func onStorageFailure(_ handler: @escaping @Sendable (StorageFailure) -> Void) {
        storageFailureHandler = handler
    }

    /// One failed save, as `onStorageFailure(_:)` reports it.
    public struct StorageFailure: Sendable {
        /// What the store reported.
        public let error: StorageError
        /// The revision the list is back at (the last saved one).
        public let revision: Revision
    }
}
