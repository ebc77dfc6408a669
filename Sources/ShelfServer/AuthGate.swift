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
    /// - Parameter evictable: as `UnauthenticatedConnections.admit(_:evictable:)`; must not block.
    /// - Returns: the unauthenticated connection to be closed to make room, or `nil`.
    func admit(_ id: UInt64, evictable: (UInt64) -> Bool = { _ in true }) -> UInt64? {
        state.withLock { $0.waiting.admit(id, evictable: evictable) }
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

    /// Counts an `auth` from `address` arriving at `now` (the session's `ServerClock`, as the wait for the slot
    /// is), and says when it may be checked (`GuessThrottle.slot`); `nil`: refused at once, the address's turns being
    /// booked further ahead than the longest wait.
    func slot(for address: String, now: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        state.withLock { $0.guesses.slot(for: address, now: now) }
    }

    /// Logs `line` through `log` unless another authentication line went out less than a second ago; the next line
    /// that goes out says how many were held back (a guessing flood must not flood the log).
    func log(_ line: @autoclosure () -> String, to log: ServerLog) {
        let now = ContinuousClock.now
        guard let unlogged = state.withLock({ $0.logLines.admit(now: now) }) else { return }
        let more = unlogged > 0 ? " (\(ServerLog.count(unlogged, "more authentication line")) held back since the last)" : ""
        log(line() + more)
    }

    /// What the guess slowdown counts a peer's `HOST:PORT` (`TCPConnection.peer`) by: its address without the port,
    /// an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`, a dual-stack socket's IPv4 peer) as its IPv4 address. IPv6
    /// addresses count one by one, not by prefix: the hosts of a LAN share a /64, and one stranger's guessing must
    /// not slow every one of them (a host that rotates through its prefix's addresses is not caught; PROTOCOL.md §12).
    static func address(ofPeer peer: String) -> String {
        var host = peer
        if peer.hasPrefix("["), let close = peer.firstIndex(of: "]") {
            host = String(peer[peer.index(after: peer.startIndex)..<close])
        } else if let colon = peer.lastIndex(of: ":") {
            host = String(peer[..<colon])
        }
        let mapped = "::ffff:"
        if host.lowercased().hasPrefix(mapped), host.dropFirst(mapped.count).contains(".") {
            return String(host.dropFirst(mapped.count))
        }
        return host
    }
}
