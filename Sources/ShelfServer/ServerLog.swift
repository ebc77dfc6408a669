import Foundation
import ShelfCore
import Synchronization

/// Where `shelfd` logs: one line per event (connections, errors), never request bodies or titles.
public struct ServerLog: Sendable {
    private let sink: @Sendable (String) -> Void

    /// A log that hands each line, without newline, to `sink`.
    public init(sink: @escaping @Sendable (String) -> Void) {
        self.sink = sink
    }

    /// Lines are dropped (tests).
    public static let silent = ServerLog { _ in }

    /// A log that hands each line to `sink` on its own serial queue, in order (`LogQueue`): logging runs on the
    /// event loop, and a standard error nobody drains (a paused pipe) must stall the log, never the server.
    /// `flush()` waits (2 s at most) for the lines handed over so far.
    public static func queued(_ sink: @escaping @Sendable (String) -> Void) -> ServerLog {
        let queue = LogQueue(sink: sink)
        return ServerLog(sink: { queue.add($0) }, flush: { await queue.flush(within: 2) })
    }

    private var flushQueued: (@Sendable () async -> Void)?

    private init(sink: @escaping @Sendable (String) -> Void, flush: @escaping @Sendable () async -> Void) {
        self.sink = sink
        flushQueued = flush
    }

    /// Waits until every line logged so far has been handed to the sink (a `queued` log; others at once), e.g.
    /// before exiting.
    public func flush() async { await flushQueued?() }

    /// Logs one line.
    public func callAsFunction(_ line: String) { sink(line) }

    /// Shared by every copy of this log, so the limit is server-wide.
    private let throttles = PeerLineThrottles()

    /// The least time between two lines of one `PeerLine` kind: 1 s, as for failed saves (`StorageFailureLog`).
    static let peerLineInterval: Duration = .seconds(1)

    /// Logs `line` unless a line of the same kind went out less than `peerLineInterval` before `now`; the lines
    /// held back are counted, and the count is added to the next line of that kind. A peer can cause these lines
    /// at will (a connect flood, wrong tokens in a loop), and must not be able to flood the log.
    func throttled(_ kind: PeerLine, now: ContinuousClock.Instant = .now, _ line: @autoclosure () -> String) {
        guard let unlogged = throttles.admit(kind, now: now) else { return }
        sink(unlogged > 0 ? "\(line()) (\(unlogged) more such line(s) not logged since the last one)" : line())
    }
}

/// The kinds of per-connection log line a peer can cause; each kind has its own `LogThrottle`.
enum PeerLine: Hashable, Sendable {
    /// A connection refused: over `--max-connections`, or out of descriptors.
    case refused
    /// A connection closed after its failed `auth` attempts.
    case failedAuth
    /// A connection that ended for a reason: cut off as a slow consumer, idle, a write error or timeout.
    case closedForReason
}

/// One `LogThrottle` per `PeerLine` kind.
private final class PeerLineThrottles: Sendable {
    private let throttles = Mutex<[PeerLine: LogThrottle]>([:])

    func admit(_ kind: PeerLine, now: ContinuousClock.Instant) -> Int? {
        throttles.withLock { throttles in
            throttles[kind, default: LogThrottle(interval: ServerLog.peerLineInterval)].admit(now: now)
        }
    }
}
