/// The outcome of a watch run: the writer's load and what each watcher received.
struct WatchReport: Sendable {
    /// One watcher's final tally.
    struct Watcher: Sendable {
        var startRevision: Int
        var received: Int
        var lastRevision: Int
        var gaps: Int
        var failure: String?

        init(progress: WatcherProgress) {
            startRevision = progress.startRevision.load(ordering: .acquiring)
            received = progress.received.load(ordering: .acquiring)
            lastRevision = progress.lastRevision.load(ordering: .acquiring)
            gaps = progress.gaps.load(ordering: .acquiring)
            failure = progress.stopped.load(ordering: .acquiring) ? progress.failure.withLock { $0 } : nil
        }

        /// Exactly the acknowledged writes, in revision order with no gap, and still connected.
        func isComplete(acked: Int) -> Bool {
            failure == nil && gaps == 0 && received == acked && lastRevision - startRevision == acked
        }
    }

    var writer: LoadReport
    /// The writer's successful replies (every one a change every watcher must receive).
    var acked: Int
    /// How long the watchers took, after the writer's last reply, to have received everything.
    var catchUp: Duration
    var watchers: [Watcher]

    var complete: Int { watchers.filter { $0.isComplete(acked: acked) }.count }

    var fields: [(String, String)] {
        let received = watchers.map(\.received)
        return [
            ("watchers", "\(watchers.count)"),
            ("writers", "\(writer.connections)"),
            ("pipeline", "\(writer.pipeline)"),
            ("window_s", Format.fixed(Double(LatencyHistogram.nanoseconds(writer.window)) / 1e9, 3)),
            ("acked", "\(acked)"),
            ("writer_ops_per_s", Format.fixed(writer.opsPerSecond, 3)),
            ("writer_errors", "\(writer.total.errors)"),
            ("complete", "\(complete)"),
            ("min_received", "\(received.min() ?? 0)"),
            ("max_received", "\(received.max() ?? 0)"),
            ("gaps", "\(watchers.reduce(0) { $0 + $1.gaps })"),
            ("stopped", "\(watchers.filter { $0.failure != nil }.count)"),
            ("catch_up_ms", Format.fixed(Double(LatencyHistogram.nanoseconds(catchUp)) / 1e6, 1)),
        ]
    }

    var sentence: String {
        var text = "\(complete) of \(watchers.count) watchers received all \(acked) acknowledged changes in order "
            + "(writer: \(Format.grouped(writer.opsPerSecond)) ops/s, \(writer.total.errors) error replies; "
            + "caught up \(Format.latency(Double(LatencyHistogram.nanoseconds(catchUp)))) after the last reply)"
        if let failure = watchers.lazy.compactMap(\.failure).first { text += "; a watcher stopped: \(failure)" }
        return text
    }
}
