import Foundation
import ShelfCore

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
}
