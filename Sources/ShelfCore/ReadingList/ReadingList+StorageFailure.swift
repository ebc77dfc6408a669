extension ReadingList {
    /// Calls `handler` on the actor each time a save fails and the list rolls back, and each time a change is
    /// refused because the revision counter is exhausted (keep it short and non-blocking; `shelfd` logs it, at most
    /// a line a second). Replaces an earlier handler.
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
