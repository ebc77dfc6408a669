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

    /// A log that stamps each line with the time it is logged (`stamped(_:at:)`) and hands it to `sink` on its own
    /// serial queue, in order (`LogQueue`): logging runs on the event loop, and a standard error nobody drains (a
    /// paused pipe) must stall the log, never the server. `flush()` waits (2 s at most) for the lines handed over so
    /// far.
    /// - Parameter now: the wall clock the stamps are read from.
    public static func queued(
        now: @escaping @Sendable () -> Date = { Date() }, _ sink: @escaping @Sendable (String) -> Void
    ) -> ServerLog {
        let queue = LogQueue(stamp: { stamped($0, at: now()) }, sink: sink)
        return ServerLog(sink: { queue.add($0) }, flush: { await queue.flush(within: 2) })
    }

    /// `line` as standard error shows it: the time in RFC 3339 UTC with milliseconds, then `shelfd:`, as in
    /// `2026-12-01T20:15:03.123Z shelfd: connection 3 closed`, so lines can be matched with other logs and with
    /// what clients saw.
    public static func stamped(_ line: String, at date: Date) -> String {
        "\(Timestamp.format(date)) shelfd: \(line)"
    }

    private var flushQueued: (@Sendable () async -> Void)?

    private init(sink: @escaping @Sendable (String) -> Void, flush: @escaping @Sendable () async -> Void) {
        self.sink = sink
        flushQueued = flush
    }

    /// Waits until every line logged so far has been handed to the sink (a `queued` log; others at once), e.g.
    /// before exiting.
    public func flush() async { await flushQueued?() }

    /// `count` and `noun`, with an `s` unless the count is 1: `1 connection`, `2 connections`.
    public static func count(_ count: Int, _ noun: String) -> String {
        "\(count) \(noun)\(count == 1 ? "" : "s")"
    }

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
        sink(unlogged > 0 ? "\(line()) (\(ServerLog.count(unlogged, "more such line")) not logged since the last one)" : line())
    }
}

/// The kinds of per-connection log line a peer can cause; each kind has its own `LogThrottle`.
enum PeerLine: Hashable, Sendable {
    /// A connection refused: over `--max-connections`, or out of descriptors.
    case refused
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
