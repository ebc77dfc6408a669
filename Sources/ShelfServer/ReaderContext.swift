/// What a session's reader remembers between requests.
struct ReaderContext {
    /// The ticket of this connection's latest mutation still being saved, which the next read must wait for.
    var lastPendingTicket: UInt64?
    /// Whether `auth` succeeded (always true when the server has no token).
    var authenticated: Bool
    /// Failed `auth` attempts so far; at `TokenCheck.maxFailures` the connection is closed.
    var failedAuthAttempts = 0
    /// False once the reader must stop (too many failed `auth` attempts).
    var keepReading = true
}
