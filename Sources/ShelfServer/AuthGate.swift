import Synchronization

/// The server-wide side of authentication (protocol/PROTOCOL.md §12), shared by the accept loop and every session:
/// the budget of connections not yet authenticated, the per-address slowdown of wrong tokens, and the throttle on
/// the log lines a peer can cause by failing. Tiny synchronous state behind one `Mutex`: every call is a few
/// dictionary or array operations, never a wait.
final class AuthGate: Sendable {
    private struct State {
        var waiting: UnauthenticatedConnections
        var guesses: GuessThrottle<ContinuousClock.Instant>
        var logLines = LogThrottle(interval: .seconds(1))
    }

    private let state: Mutex<State>

    /// A gate for a server with `configuration` (its `maxUnauthenticated` and guess delays).
    init(configuration: ServerConfiguration) {
        state = Mutex(State(
            waiting: UnauthenticatedConnections(budget: configuration.maxUnauthenticated),
            guesses: GuessThrottle(baseDelay: configuration.guessBaseDelay, maxDelay: configuration.guessMaxDelay)))
    }

    /// Counts a connection just accepted as unauthenticated.
    /// - Returns: the oldest unauthenticated connection, to be closed to make room, or `nil`.
    func admit(_ id: UInt64) -> UInt64? {
        state.withLock { $0.waiting.admit(id) }
    }

    /// Connection `id` authenticated, from `address`: it leaves the budget and the address's failures are forgotten.
    func authenticated(_ id: UInt64, address: String) {
        state.withLock {
            $0.waiting.remove(id)
            $0.guesses.succeeded(address)
        }
    }

    /// Connection `id` ended. Idempotent.
    func ended(_ id: UInt64) {
        state.withLock { $0.waiting.remove(id) }
    }

    /// Whether connection `id` has still not authenticated.
    func isWaiting(_ id: UInt64) -> Bool {
        state.withLock { $0.waiting.contains(id) }
    }

    /// Counts an `auth` from `address` arriving now, and says when it may be checked (`GuessThrottle.slot`).
    func slot(for address: String) -> ContinuousClock.Instant {
        let now = ContinuousClock.now
        return state.withLock { $0.guesses.slot(for: address, now: now) }
    }

    /// Logs `line` through `log` unless another authentication line went out less than a second ago; the next line
    /// that goes out says how many were held back (a guessing flood must not flood the log).
    func log(_ line: @autoclosure () -> String, to log: ServerLog) {
        let now = ContinuousClock.now
        guard let unlogged = state.withLock({ $0.logLines.admit(now: now) }) else { return }
        let more = unlogged > 0 ? " (\(ServerLog.count(unlogged, "more authentication line")) held back since the last)" : ""
        log(line() + more)
    }

    /// The address part of a peer's `HOST:PORT` (`TCPConnection.peer`): what the guess slowdown counts by.
    static func address(ofPeer peer: String) -> String {
        if peer.hasPrefix("["), let close = peer.firstIndex(of: "]") {
            return String(peer[peer.index(after: peer.startIndex)..<close])
        }
        if let colon = peer.lastIndex(of: ":") { return String(peer[..<colon]) }
        return peer
    }
}
