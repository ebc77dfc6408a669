/// What one load connection saw. Each connection keeps its own (no sharing while running); the run merges them.
struct ConnectionStats: Sendable {
    /// Replies received inside the measured window, and their latencies.
    var ops = 0
    var latency = LatencyHistogram()
    /// Every reply received, warm-up and drain included.
    var replies = 0
    /// Error replies among `replies` (JSON-RPC `error`, RESP `-ERR`).
    var errors = 0
    /// Bytes received.
    var bytes = 0
    /// When the last reply arrived.
    var lastReply: ContinuousClock.Instant?
    /// Why the connection stopped early (the server closed it, a socket error, a reply that could not be framed).
    var failure: String?

    /// Replies that were not errors: the writes the server acknowledged.
    var successes: Int { replies - errors }

    /// Adds `other` to this total.
    mutating func merge(_ other: ConnectionStats) {
        ops += other.ops
        latency.merge(other.latency)
        replies += other.replies
        errors += other.errors
        bytes += other.bytes
        if let last = other.lastReply { lastReply = max(lastReply ?? last, last) }
        if failure == nil { failure = other.failure }
    }
}
