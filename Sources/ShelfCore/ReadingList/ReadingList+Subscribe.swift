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
}
