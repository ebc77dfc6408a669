import Glibc
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

    /// What the guess slowdown counts a peer's `HOST:PORT` (`TCPConnection.peer`) by: its IPv4 address (also when
    /// it comes IPv4-mapped, `::ffff:a.b.c.d`), or the /64 prefix of its IPv6 address — one host or home network
    /// usually gets a whole /64, so counting single IPv6 addresses would let it rotate through them.
    static func address(ofPeer peer: String) -> String {
        var host = peer
        if peer.hasPrefix("["), let close = peer.firstIndex(of: "]") {
            host = String(peer[peer.index(after: peer.startIndex)..<close])
        } else if let colon = peer.lastIndex(of: ":") {
            host = String(peer[..<colon])
        }
        guard host.contains(":") else { return host }
        let text = host.split(separator: "%", maxSplits: 1).first.map(String.init) ?? host
        var bytes = in6_addr()
        guard inet_pton(AF_INET6, text, &bytes) == 1 else { return host }
        let octets = withUnsafeBytes(of: &bytes) { Array($0) }
        if octets[0..<10].allSatisfy({ $0 == 0 }), octets[10] == 0xFF, octets[11] == 0xFF {
            return octets[12...].map(String.init).joined(separator: ".")
        }
        let groups = stride(from: 0, to: 8, by: 2).map { String(UInt16(octets[$0]) << 8 | UInt16(octets[$0 + 1]), radix: 16) }
        return groups.joined(separator: ":") + "::/64"
    }
}
