/// The shared, read-only plan every load connection follows.
struct LoadPlan: Sendable {
    var template: RequestTemplate
    var framing: BenchOptions.Framing
    var connections: Int
    var pipeline: Int
    /// The counter of request `k` on connection `i` is `start + i + k * connections`: unique across connections.
    var start: Int
    /// Replies arriving from here on are measured.
    var measureFrom: ContinuousClock.Instant
    /// Replies arriving from here on are not measured and no new request is sent; `nil` with `--requests`.
    var stopAt: ContinuousClock.Instant?
    /// `--requests`: the total number of requests over all connections.
    var totalRequests: Int?
    /// After `stopAt`, keep reading until every request sent has its reply (so the writes acknowledged are known).
    var drain: Bool

    /// How many requests connection `index` sends at most.
    func quota(for index: Int) -> Int {
        guard let totalRequests else { return Int.max }
        guard index < totalRequests else { return 0 }
        return (totalRequests - index + connections - 1) / connections
    }

    func counter(connection index: Int, request: Int) -> Int {
        start + index + request * connections
    }
}
