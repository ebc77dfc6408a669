/// The outcome of a load run: throughput over the measured window and latency percentiles.
struct LoadReport: Sendable {
    var connections: Int
    var pipeline: Int
    /// The measured window: `--duration`, or from the start to the last reply with `--requests`.
    var window: Duration
    var total: ConnectionStats
    /// Connections that stopped early, and the first reason.
    var failedConnections: Int

    var opsPerSecond: Double {
        let seconds = Double(LatencyHistogram.nanoseconds(window)) / 1e9
        return seconds > 0 ? Double(total.ops) / seconds : 0
    }

    /// `key=value` pairs for scripts, latencies in microseconds.
    var fields: [(String, String)] {
        let latency = total.latency
        return [
            ("connections", "\(connections)"),
            ("pipeline", "\(pipeline)"),
            ("window_s", Format.fixed(Double(LatencyHistogram.nanoseconds(window)) / 1e9, 3)),
            ("ops", "\(total.ops)"),
            ("ops_per_s", Format.fixed(opsPerSecond, 3)),
            ("mean_us", Format.fixed(latency.meanNanoseconds / 1e3, 1)),
            ("p50_us", Format.fixed(latency.percentile(0.50) / 1e3, 1)),
            ("p99_us", Format.fixed(latency.percentile(0.99) / 1e3, 1)),
            ("p999_us", Format.fixed(latency.percentile(0.999) / 1e3, 1)),
            ("max_us", Format.fixed(Double(latency.maxNanoseconds) / 1e3, 1)),
            ("replies", "\(total.replies)"),
            ("errors", "\(total.errors)"),
            ("bytes", "\(total.bytes)"),
            ("failed_connections", "\(failedConnections)"),
        ]
    }

    /// One sentence for people.
    var sentence: String {
        let latency = total.latency
        var text = "\(connections) connection\(connections == 1 ? "" : "s") x \(pipeline) in flight, "
            + "\(Format.fixed(Double(LatencyHistogram.nanoseconds(window)) / 1e9, 2)) s: "
            + "\(Format.grouped(opsPerSecond)) ops/s; latency p50 \(Format.latency(latency.percentile(0.5))), "
            + "p99 \(Format.latency(latency.percentile(0.99))), p99.9 \(Format.latency(latency.percentile(0.999))), "
            + "max \(Format.latency(Double(latency.maxNanoseconds))); \(total.errors) error replies"
        if failedConnections > 0, let failure = total.failure {
            text += "; \(failedConnections) connection(s) stopped early: \(failure)"
        }
        return text
    }
}
